/** The page's CSS (inline: the page loads nothing). System fonts only. */
export const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#1d1d1f;background:#fff}
code{font-family:ui-monospace,monospace;word-break:break-all}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
.verdict strong{font-family:ui-monospace,monospace}
.aggregated{background:#fff6d6;border-left:4px solid #d9a400;padding:.4em .7em}
.scroll{overflow-x:auto}
figure{margin:0}
svg.timeline{font:11px system-ui,sans-serif;background:#fff}
.track{fill:#f1f3f6}
.own{fill:#2f6fd0}
.other{fill:#8a5cc2}
.shows{color:#333;max-width:75em}
.gap{fill:#d33c2f}
.slow,.hatch{fill:#e69500}
svg.timeline .slow{fill:url(#hatch);fill-opacity:.9}
.rel{stroke:#d33c2f;stroke-width:2}
.rel-key{fill:#d33c2f}
.epoch{stroke:#333;stroke-width:1}
.epoch-key{fill:#555}
.hit{stroke:transparent;stroke-width:6}
.bump:hover .epoch{stroke:#000;stroke-opacity:1;stroke-width:2}
.bl{fill:#333;font-size:10px}
.name{text-anchor:end;fill:#1d1d1f}
.aggregated .name,.nobody .name{font-style:italic}
.axis line{stroke:#777}.axis text{fill:#555}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4em 1.4em}
.legend svg{vertical-align:middle}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #d5d8dc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f1f3f6}
td ul{margin:0;padding-left:1.1em}
.conf{color:#666}
footer{margin-top:2em;color:#666}
`
