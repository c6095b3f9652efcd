-- The warehouse's per-user aggregate that `mediate experiment report --user-days` reads: one row
-- per day, experiment, variant and unit (the experiment's user) with its requests
-- (auction_started), impressions (shown) and revenue (USD). A user-day with its exposure and no
-- request is a row of zeros: the user is exposed and counts. Revenue is written with 12
-- decimals (plain decimal text, as the report reads it).
SELECT
    day,
    experiment,
    variant,
    unit,
    countIf(event = 'auction_started') AS requests,
    countIf(event = 'shown') AS impressions,
    toDecimalString(sumIf(revenue_usd, event = 'shown'), 12) AS revenue_usd
FROM events
WHERE experiment != '' AND event IN ('exposure', 'auction_started', 'shown')
GROUP BY day, experiment, variant, unit
ORDER BY experiment, day, unit, variant
FORMAT CSVWithNames
