/// `mediate --help` and `--version`.
enum HelpText {
    /// The version `mediate --version` prints.
    static let version = "0.1.0"

    /// The usage text.
    static let usage = """
    mediate: run and debug ad auctions for a placement of the mediation engine's config.

    Usage:
      mediate --placement ID [--config FILE] [--json] [--seed N] [--messages FILE]
              [--debug[=unredacted]] [--report FILE.html]
              [--config-url URL --public-key KEY.pub [--state-dir DIR]]
      mediate --placement ID --watch [--duration D] [--fast] [--json] [--config FILE]
              [--seed N] [--messages FILE] [--debug[=unredacted]] [--report FILE.html]
              [--events FILE.ndjson] [--config-url URL --public-key KEY.pub [--state-dir DIR]]
      mediate config keygen --out KEY
      mediate config sign --key KEY --version N [--rollout PERCENT [--salt S]] [--issued-at TIME]
                          [--public-key KEY.pub] CONFIG
      mediate config verify --public-key KEY.pub SIGNED
      mediate networks [--config FILE] [--json] [--state-dir DIR [--public-key KEY.pub]]
      mediate validate [--config FILE]
      mediate optimize --reports FILE.csv... [--config FILE] [--events FILE.ndjson
                       [--events-start DAY]] [--as-of DAY] [--json] [--write NEW.json]
      mediate experiment report [--config FILE] (--events FILE.ndjson... | --user-days FILE.csv...)
                                [--as-of DAY] [--json] [--report FILE.html]
      mediate simulate --placement ID [--config FILE] [--market FILE] [--seed N]
                       [--auctions N | --duration D [--rate R] [--window W]]
                       [--json] [--jobs K] [--report FILE.html]
                       [--compare OTHER_CONFIG | --compare-health | --sweep SPEC | --replay FILE.ndjson
                        | --days D [--learner L[,L...]] [--drift NETWORK:FACTOR@DAY] [--write-reports DIR]
                          [--country CC]]
      mediate --help | --version

    Options:
      --placement ID     the placement to run (a key of the config's "placements")
      --config FILE      the configuration (default: Config/mediation.json)
      --json             print the outcome and trace as JSON on standard output (--watch:
                         one JSON document with the summary and every auction at the end)
      --seed N           seed for the sandboxes and the fallback network (default 1);
                         the same seed gives the same fills and creatives
      --messages FILE    a JSON conversation, [{"role", "content", "id"?, "created_at"?}],
                         sent as the request's chat context (see Config/sample-conversation.json)
      --watch            keep the placement running as one visible view; print each
                         auction, impression and refresh as it happens, then a summary per
                         network and line item (Ctrl-C stops)
      --duration D       how long --watch runs: seconds, or a number and a unit (500ms, 90s,
                         5m, 1h, 1d), at most a week (default 180)
      --fast             run --watch on virtual time, as fast as the CPU allows, with
                         virtual timestamps (the same lines every run); sandbox endpoints
                         only (a real network is refused); state in DIR/virtual-time
      --debug            print every source's adapter call and HTTP exchange (method, URL,
                         status, headers, bodies cut at 8192 characters, times from the
                         auction's start) with user data and identifiers shown as [redacted]
      --debug=unredacted the same with user data and identifiers as sent
      --report FILE      write a self-contained HTML report: a timeline per auction, the
                         per-source table and, with --watch, the summary tables
      --events FILE      --watch writes every engine event to FILE, one JSON object a line
      --config-url URL   a signed configuration on a server: a one-shot run checks it once
                         before its auction (real time, at most 10 s), over the cache in
                         --state-dir and the bundled --config; --watch checks it as an app
                         would and prints a line when a new version is applied
      --public-key FILE  the keys --config-url must be signed with (KEY.pub lines)
      --state-dir DIR    keeps the last verified configuration and the install id across runs

    Commands:
      networks           each network's adapter version, endpoint, mode, initialisation,
                         effective timeouts, health and caps (stored in --state-dir, if
                         given), the privacy it applies, and which configuration is in force
                         (with --public-key, the remote one stored in --state-dir when it
                         verifies and is the newest); sends nothing
      validate           load the config and build every adapter
      config keygen      write a new signing key to KEY (mode 0600) and KEY.pub (one line)
      config sign        print CONFIG signed as version N (a signed file: signed again, the
                         rollback in one command, once it verifies with KEY or --public-key);
                         --rollout: only PERCENT of installs take it
      config verify      say whether SIGNED verifies with KEY.pub and builds (exit 65 if not)
      experiment report  each experiment's variants (users, requests, fill, eCPM, revenue per
                         user), the split check and the difference to control per user with an
                         always-valid interval, from engine events or a warehouse's per-user
                         CSV (docs/experiments.md)
      optimize           learn each fixed-price line item's eCPM from the networks' revenue
                         reports (CSV: day,network,ad_unit_id[,country],impressions,revenue,currency),
                         with its 90 % interval and decision (docs/learning.md); --events: the
                         app's impressions (a --watch --events log) to check the reports
                         against, per day with --events-start DAY (the UTC day on whose
                         midnight the log's clock started); --as-of DAY (default: the latest reported day); --write:
                         the config with the learned ecpm, ecpm_sd and ecpm_impressions

    simulate (what-if runs of the real engine on virtual time against Config/market.json):
      --market FILE      the market model (default: Config/market.json)
      --auctions N       auctions to run (default 10000)
      --compare FILE     run --config (A) and FILE (B) on the same draws; B - A with 95 % intervals
      --sweep SPEC       floor=0.5:4.0:0.25, deadline_ms=500:3000:250 or LINE_ITEM.ecpm=1:2:0.2
      --duration D       a timed run: auctions at --rate R per second (default 10) over D of
                         virtual time (90s, 10m, 1h, 1d), with figures per --window W (default
                         60s, wider past a day: at most 1440 windows); alone on a refreshing
                         placement: one visible view over D
      --compare-health   the engine without network health (A) and with it (B), same draws
      --replay FILE      re-run the auctions of a --watch --events log under --config
      --days D           the learning loop (docs/learning.md): D days of --auctions N a day for
                         each learner and the true-means limit on the same draws; each learner
                         reprices from its own revenue reports at the end of each day
      --learner L        static, auto-cpm, smoothing, bayes, thompson, or all (the first four;
                         the default); a comma-separated list runs several
      --drift SPEC       NETWORK:FACTOR@DAY, e.g. nitx:0.5@5 (Nitx's prices halve from day 5)
      --write-reports DIR  each learner's daily revenue reports, DIR/LEARNER/YYYY-MM-DD.csv
      --country CC       a market country (e.g. IN) whose daily ratio to its own limit the
                         learning loop adds for each learner
      --users N          N simulated users through --days D user-days each (sessions, level
                         ends, relaunches, clock changes; docs/simulation.md): impressions and
                         revenue per user per day, refused shows, wasted loads and an
                         independent count of cap, pacing and gap violations; --events FILE
                         writes their engine events
      --jobs K           shards run at once (the same output for any K)
      --report FILE      also write a self-contained HTML report with charts

    Exit codes:
      0   filled (validate: the config is valid)
      2   no fill: the auction ran and no source filled
      64  usage error
      65  invalid config (the message names the JSON path), messages file, market, recording,
          key, or a signed config that does not verify
      65  (optimize) a revenue report or events file with a mistake (file:line:column)
      66  missing config, messages, market, recording, report or events file
      70  internal error
      73  the --report or --events file, a key file, --state-dir or optimize's --write
          file could not be created

    """
}
