-- The warehouse's per-user aggregate that `mediate experiment report --user-days` reads: one row
-- per day, experiment, variant and unit (the experiment's user) with its requests
-- (auction_started), impressions (shown) and revenue (USD). A user-day with its exposure and no
-- request is a row of zeros: the user is exposed and counts. Revenue is written with 12
-- decimals (plain decimal text, as the report reads it).
--
-- The engine writes day on exposure and shown events only: a request (auction_started) counts
-- on the day of the same user's latest event with a day before it (its exposure, or a shown), in
-- the order of the logs (source, line), as `mediate experiment report --events` counts it. A
-- request with no such event gets an empty day, which the report refuses.
SELECT
    ifNull(day_carried, '') AS day,
    experiment,
    variant,
    unit,
    countIf(event = 'auction_started') AS requests,
    countIf(event = 'shown') AS impressions,
    toDecimalString(sumIf(revenue_usd, event = 'shown'), 12) AS revenue_usd
FROM
(
    SELECT
        event, experiment, variant, unit, revenue_usd,
        last_value(nullIf(day, '')) OVER (PARTITION BY experiment, unit ORDER BY source, line
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS day_carried
    FROM events
    WHERE experiment != '' AND event IN ('exposure', 'auction_started', 'shown')
)
GROUP BY day, experiment, variant, unit
ORDER BY experiment, day, unit, variant
FORMAT CSVWithNames
