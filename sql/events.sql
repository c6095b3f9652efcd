-- The engine's NDJSON events (mediate --watch --events, simulate --events, a host's
-- MediationEvent.NDJSONWriter) as one ClickHouse table, one row per event. The fields read: the
-- record's event, at_ms and placement; the experiment fields (experiment, variant, unit, day) and
-- country; a shown event's revenue_usd and ad (network, lineItemID); an auction_finished event's
-- trace sources (line item -> ad unit). docs/experiments.md says how to load from S3 or Kafka
-- instead of a file: only the FROM of the INSERT changes.
CREATE TABLE IF NOT EXISTS events
(
    source      String,                 -- the file (or topic) the event came from
    line        UInt64,                 -- its place there
    event       LowCardinality(String),
    at_ms       Float64,
    placement   String,
    experiment  String,                 -- '' when the event is under no experiment
    variant     String,
    unit        String,
    day         String,                 -- YYYY-MM-DD (UTC), '' when absent
    country     String,
    revenue_usd Float64,                -- shown events; 0 otherwise
    network     String,                 -- shown events' ad.network
    line_item   String,                 -- shown events' ad.lineItemID
    sources     Array(Tuple(line_item String, ad_unit_id String)) -- auction_finished events' trace.sources
)
ENGINE = MergeTree
ORDER BY (experiment, unit, day);

INSERT INTO events
SELECT
    _file,
    rowNumberInAllBlocks() + 1,
    JSONExtractString(json, 'event'),
    JSONExtractFloat(json, 'at_ms'),
    JSONExtractString(json, 'placement'),
    JSONExtractString(json, 'experiment'),
    JSONExtractString(json, 'variant'),
    JSONExtractString(json, 'unit'),
    JSONExtractString(json, 'day'),
    JSONExtractString(json, 'country'),
    JSONExtractFloat(json, 'revenue_usd'),
    JSONExtractString(json, 'ad', 'network'),
    JSONExtractString(json, 'ad', 'lineItemID'),
    JSONExtract(json, 'trace', 'sources', 'Array(Tuple(line_item String, ad_unit_id String))')
FROM file('events.ndjson', 'LineAsString', 'json String')
WHERE json != ''
-- One reader, so that line numbers follow the file (the order a request's day is carried in).
SETTINGS input_format_parallel_parsing = 0, max_threads = 1;
