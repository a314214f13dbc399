//! The report page's style and its small script. The page reads whole
//! without the script (the groups fold, the statuses are words); the
//! script only adds the filter bar and sorting by a column of a matrix.

pub const HEAD: &str = r#"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width"><title>SER spec traceability</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1360px;color:#1b1f24;padding:0 16px}
h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid #d0d7de}h3{margin-top:20px}nav a{margin-right:12px}
.lead{font-size:16px;color:#444}.muted{color:#57606a;font-weight:normal;font-size:13px}
table{border-collapse:collapse;width:100%;margin:8px 0 16px;table-layout:fixed}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top;word-break:normal;hyphens:none}th{overflow-wrap:normal}td{overflow-wrap:break-word}
th{background:#f6f8fa;font-size:12px}td.n{text-align:right}col.n{width:80px}col.tw{width:150px}col.barcol{width:300px}tr.all td{font-weight:600;background:#f6f8fa}
col.id{width:25%}col.kind{width:9%}col.q{width:46%}col.cases{width:20%}col.cid{width:30%}col.doc{width:22%}col.bn{width:40px}col.bl{width:22%}col.vd{width:34%}
.bar{display:inline-block;width:200px;height:12px;background:#eaeef2;border-radius:6px;overflow:hidden;vertical-align:middle}
.na{color:#6e7781;font-size:12px}.bar span{display:inline-block;height:100%}.bar .c{background:#2da44e}.bar .p{background:#d4a72c}.bar .t{background:#8fd19e}
.st{font-weight:600;padding:1px 5px;border-radius:4px;font-size:12px}.pass{background:#dafbe1;color:#116329}.broken{background:#ffebe9;color:#a40e26}
.cited{background:#fff8c5;color:#7d4e00}.notmet{background:#fff1e5;color:#953800}.st.na{background:#eaeef2;color:#57606a}
.st.nr{color:#6e7781;background:repeating-linear-gradient(135deg,#fff,#fff 4px,#eaeef2 4px,#eaeef2 8px);font-weight:normal;font-style:italic}
table.totals td{font-size:13px}table.mx td{font-size:12px}table.mx td:first-child{font-family:ui-monospace,monospace}
td.st{border-radius:0}table.mx td{font-weight:600}table.mx td:first-child{font-weight:normal}ul.bylist{font-size:12px;padding-left:18px}ul.bylist li{margin:2px 0}ul.bylist li>a:first-child{font-family:ui-monospace,monospace}td.cid{font-family:ui-monospace,monospace;font-size:13px}td.cl a{font-family:ui-monospace,monospace}td.q{font-size:13px;color:#333}td.cases{font-size:12px;font-family:ui-monospace,monospace}
.sec{font-size:11px;color:#57606a}tr.sec td{background:#f6f8fa;font-size:12px;color:#57606a;font-weight:600}.link{font-size:11px}blockquote{margin:4px 0 4px 12px;padding-left:8px;border-left:3px solid #d0d7de;color:#333}
code{font-family:ui-monospace,monospace}details summary{cursor:pointer}details.fold summary{color:#0969da}
details.doc,details.group,details.finding{margin:6px 0}details.doc>summary,details.group>summary,details.finding>summary{padding:4px 0}
details.status{margin:4px 0 4px 16px}.fbody{margin-left:16px}.kind{font-size:12px;color:#57606a;border:1px solid #d0d7de;border-radius:10px;padding:0 6px}
ul.quotes{padding-left:18px}ul.unc{padding-left:18px}ul.unc li{margin:6px 0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px;font-size:12px}.failcase{margin:8px 0}
#filters{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #d0d7de;z-index:1}th.sort{cursor:pointer;text-decoration:underline dotted}
</style></head><body>"#;

/// Filters the matrices by backend column, status, document and id text,
/// and sorts a matrix by a column (worst status first).
pub const SCRIPT: &str = r#"<script>
(function(){var f=document.getElementById('filters');if(!f)return;f.hidden=false;
var fb=document.getElementById('fb'),fs=document.getElementById('fs'),fd=document.getElementById('fd'),ft=document.getElementById('ft');
var t0=document.querySelector('table.mx');if(t0)t0.querySelectorAll('th').forEach(function(th,i){if(i>0)fb.add(new Option(th.textContent,i))});
var seen={};document.querySelectorAll('details.group[data-doc]').forEach(function(d){var k=d.dataset.doc;if(!seen[k]){seen[k]=1;fd.add(new Option(d.querySelector('b').textContent,k))}});
var rank={broken:0,cited:1,notmet:2,pass:3,na:4,nr:5};function st(td){for(var k in rank)if(td&&td.classList.contains(k))return k;return 'nr'}
function apply(){var b=+fb.value,s=fs.value,d=fd.value,q=ft.value.trim(),any=!!(s||q);
document.querySelectorAll('table.mx tbody tr').forEach(function(tr){var c=tr.cells,ok=!q||c[0].textContent.indexOf(q)>=0;
if(ok&&s){ok=false;for(var i=1;i<c.length;i++)if((!b||i===b)&&st(c[i])===s)ok=true}
tr.hidden=!ok});
document.querySelectorAll('details.group[data-doc]').forEach(function(g){var n=g.querySelectorAll('table.mx tbody tr:not([hidden])').length;
g.hidden=(!!d&&g.dataset.doc!==d)||(any&&n===0);if(!g.hidden&&(any||d))g.open=true})}
[fb,fs,fd].forEach(function(e){e.onchange=apply});ft.oninput=apply;
document.querySelectorAll('table.mx').forEach(function(t){t.querySelectorAll('th').forEach(function(th,i){th.className='sort';th.onclick=function(){
var rows=[].slice.call(t.tBodies[0].rows);rows.sort(function(a,b){return i?rank[st(a.cells[i])]-rank[st(b.cells[i])]||a.cells[0].textContent.localeCompare(b.cells[0].textContent):a.cells[0].textContent.localeCompare(b.cells[0].textContent)});
rows.forEach(function(r){t.tBodies[0].appendChild(r)})}})})})();
</script>"#;
