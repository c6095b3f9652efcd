-- The revenue report `mediate optimize --reports` reads, from the app's own impressions: one row
-- per day, network, ad unit and country with the shown events' impressions and revenue (USD).
-- The ad unit of a line item is the one the auctions' traces name for it; a line item no trace
-- of the log names is reported under its own id (optimize then warns of an unknown ad unit).
-- A country that is not two upper-case letters is written empty (traffic of no known country).
WITH ad_units AS
(
    SELECT placement, s.line_item AS line_item, any(s.ad_unit_id) AS ad_unit_id
    FROM events
    ARRAY JOIN sources AS s
    WHERE event = 'auction_finished'
    GROUP BY placement, line_item
)
SELECT
    e.day AS day,
    e.network AS network,
    if(u.ad_unit_id = '', e.line_item, u.ad_unit_id) AS ad_unit_id,
    if(match(e.country, '^[A-Z]{2}$'), e.country, '') AS country,
    count() AS impressions,
    toDecimalString(sum(e.revenue_usd), 12) AS revenue,
    'USD' AS currency
FROM events AS e
LEFT JOIN ad_units AS u ON u.placement = e.placement AND u.line_item = e.line_item
WHERE e.event = 'shown' AND e.day != ''
GROUP BY day, network, ad_unit_id, country
ORDER BY day, network, ad_unit_id, country
FORMAT CSVWithNames
