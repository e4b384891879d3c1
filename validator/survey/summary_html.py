"""summary.html: the summary's sections as one self-contained page a maintainer can work with.

Every table can be sorted by any column (a click on its header; numbers as
numbers, names in natural order: org1, org2, org10) and filtered (a search
box over its rows), by a small script inline in the page: no CDN, no file
beside it, nothing fetched, so the page works offline and from a CI
artifact. Long tables scroll inside a box of their own with the header
kept in view, so the page stays readable at thousands of runs, and every
table that does not list all its rows says how many of how many it lists.
"""

import base64
import html
import re
from pathlib import Path
from typing import NamedTuple

from ..core.natural import natural_key  # noqa: F401 (re-exported: the summary sorts runs by it)

MAX_ROWS = 5_000  # rows per table on the page; survey.csv has them all
FILTERED_FROM = 10  # a table of more rows than this gets a filter box


class Link(NamedTuple):
    """A cell that links to a page the summary names itself (a rule's documentation), not submitted text."""

    text: str
    url: str | None

    def __str__(self) -> str:
        return self.text


STYLE = """
body{font-family:system-ui,sans-serif;max-width:90em;margin:0 auto;padding:0 1em;color:#222}
h2{margin-top:1.6em;border-bottom:1px solid #ddd}
.box{max-height:28em;overflow:auto;border:1px solid #ccc;margin:.4em 0}
table{border-collapse:collapse;width:100%;font-size:.9em}
th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
th{position:sticky;top:0;background:#f4f4f4;cursor:pointer;white-space:nowrap;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.tools{display:flex;gap:1em;align-items:center;font-size:.9em}
.tools input{padding:3px 6px;min-width:18em}
figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}
"""

# Sorting and filtering, for every table of class "data". A column sorts as numbers when each of its non-empty
# cells is one (a "%" or thousands separators allowed), else in natural order.
SCRIPT = """
(function(){
function num(t){t=t.replace(/[,%\\s]/g,'');return t!==''&&isFinite(t)?parseFloat(t):null;}
var natural=new Intl.Collator(undefined,{numeric:true,sensitivity:'base'});
document.querySelectorAll('table.data').forEach(function(table){
  var section=table.closest('section'),body=table.tBodies[0],heads=table.tHead.rows[0].cells;
  var shown=section.querySelector('.shown'),filter=section.querySelector('input');
  var rows=Array.prototype.slice.call(body.rows);
  function count(){if(!shown)return;var n=rows.filter(function(r){return !r.hidden;}).length;
    shown.textContent=n.toLocaleString('en')+' of '+rows.length.toLocaleString('en')+' rows shown';}
  Array.prototype.forEach.call(heads,function(th,i){th.addEventListener('click',function(){
    var down=th.getAttribute('aria-sort')==='ascending';
    Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});
    th.setAttribute('aria-sort',down?'descending':'ascending');
    var cells=rows.map(function(r){return r.cells[i].textContent;});
    var numeric=cells.every(function(t){return t.trim()===''||num(t)!==null;});
    var order=rows.map(function(r,k){return k;});
    order.sort(function(a,b){var x=cells[a],y=cells[b],c;
      if(numeric){x=num(x);y=num(y);c=(x===null)-(y===null)||(x===null?0:x-y);}
      else{c=natural.compare(x,y);}
      return (down?-c:c)||a-b;});
    rows=order.map(function(k){return rows[k];});
    rows.forEach(function(r){body.appendChild(r);});
  });});
  if(filter)filter.addEventListener('input',function(){var q=filter.value.toLowerCase();
    rows.forEach(function(r){r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});count();});
  count();
});
})();
"""

_NUMBER = re.compile(r"-?[\d,]*\.?\d+%?")


def _cell(value) -> str:
    if isinstance(value, Link):
        text = html.escape(value.text)
        return (
            f'<td><a href="{html.escape(value.url)}">{text}</a></td>'
            if value.url
            else f"<td>{text}</td>"
        )
    text = str(value)
    kind = ' class="num"' if _NUMBER.fullmatch(text) else ""
    return f"<td{kind}>{html.escape(text)}</td>"


def table(header: list[str], lines: list[list]) -> str:
    listed = lines[:MAX_ROWS]
    more = (
        f"<p>{len(listed):,} of {len(lines):,} rows listed; survey.csv has every row.</p>"
        if len(lines) > len(listed)
        else ""
    )
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header)
    body = "".join("<tr>" + "".join(_cell(v) for v in line) + "</tr>" for line in listed)
    tools = (
        '<div class="tools"><input type="search" placeholder="Filter rows (any text)" '
        'aria-label="Filter rows"><span class="shown"></span></div>'
        if len(listed) > FILTERED_FROM
        else ""
    )
    return (
        f'{tools}<div class="box"><table class="data"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>{more}"
    )


def page(parts: list[tuple], plots: dict[str, Path]) -> str:
    body = ["<h1>Leaderboard survey</h1>"]
    for title, intro, header, lines in parts:
        section = [f"<h2>{html.escape(title)}</h2>", f"<p>{html.escape(intro)}</p>"]
        if lines:
            section.append(table(header, lines))
        body.append(f"<section>{''.join(section)}</section>")
    body.append("<h2>Plots</h2>")
    for title, path in plots.items():
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        body.append(
            f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(title)}</figcaption></figure>"
        )
    if not plots:
        body.append(
            "<p>No plots: they need lbnorm[survey] (matplotlib) and are left out by --no-plots.</p>"
        )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Leaderboard survey</title><style>{STYLE}</style></head>"
        f"<body>{''.join(body)}<script>{SCRIPT}</script></body></html>\n"
    )
