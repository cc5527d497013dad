"""A top-level function shown whole, the same in both excerpts but its one-line body, is one
place at two times, and so are the lines that open its body; the Go package clause is the
file's one package name. Near misses that must stay still true: methods inside a class or
``impl`` (twins in one file), control blocks, Python ``def`` blocks, and too little kept of the
body line."""

from __future__ import annotations

from gcmem.facts.align import Unit, align_units, units_of
from gcmem.facts.extract import extract_triples


def lines_of(path: str, lines: list[str]) -> list[Unit]:
    return units_of(f"{path}:\n" + "\n".join(lines))


def replaced(path: str, old: list[str], new: list[str]) -> list[tuple[str, str]]:
    a, b = lines_of(path, old), lines_of(path, new)
    return [(a[f.old_unit].text, b[f.new_unit].text) for f in align_units(a, b).frames]


PRINTF = "func (entry *Entry) Printf(format string, args ...interface{}) {"


def test_a_top_level_function_body_is_placed_by_its_definition() -> None:
    old = [PRINTF, "\tentry.Info(format, args...)", "}"]
    new = [PRINTF, "\tentry.Infof(format, args...)", "}"]
    assert replaced("entry.go", old, new) == [
        ("entry.Info(format, args...)", "entry.Infof(format, args...)")
    ]
    # Rust and JS top-level functions too
    rs = ["pub fn default_threads() -> usize {", "    num_cpus::get().min(12)", "}"]
    rs_new = [rs[0], "    num_cpus::get().min(16)", "}"]
    assert replaced("src/lib.rs", rs, rs_new) == [(rs[1].strip(), rs_new[1].strip())]
    js = ["export function timeout(ms) {", "  return ms || DEFAULT_TIMEOUT_MS;", "}"]
    js_new = [js[0], "  return ms || DEFAULT_TIMEOUT_SECONDS;", "}"]
    assert replaced("lib/t.js", js, js_new) == [(js[1].strip(), js_new[1].strip())]


def test_without_the_definition_one_line_either_side_stays_too_little() -> None:
    # a control block: the same condition opens many blocks of one file
    old = ["if err != nil {", "\treturn nil, errClosedPipeline", "}"]
    new = [old[0], "\treturn nil, errClosedConnection", "}"]
    assert replaced("conn.go", old, new) == []
    # a method inside an impl (indented): every impl of a file has its fmt / new
    fmt = "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {"
    old = [fmt, '        write!(f, "invalid header value")', "    }"]
    new = [fmt, '        write!(f, "invalid header name")', "    }"]
    assert replaced("src/error.rs", old, new) == []
    # a Python def has no closing line (and version-conditional twins share the def line)
    old = ["def text_type(s):", "    return unicode(s, 'utf-8')", "x = 1"]
    new = [old[0], "    return str(s, 'utf-8')", "x = 1"]
    assert replaced("compat.py", old, new) == []
    # a getter in an object literal or class: two objects of one file may have their socket
    old = ["  get socket() {", "    return this.ctx.req.socket;", "  },"]
    new = [old[0], "    return this.res.socket;", "  },"]
    assert replaced("lib/response.js", old, new) == []


def test_the_definition_line_places_the_lines_opening_its_body() -> None:
    body = [PRINTF, "\tentry.Info(format, args...)", "}"]
    edited = [PRINTF, "\tentry.Infof(format, args...)", "}"]
    assert replaced("entry.go", body, edited)  # the rule's case, for contrast
    # the definition names its place whatever else the excerpts show: a doc comment edited
    # above it, another function after it, the excerpt cut before the closing brace
    pair = ("entry.Info(format, args...)", "entry.Infof(format, args...)")
    after = replaced("entry.go", [*body, "func Print() {"], [*edited, "func Println() {"])
    assert pair in after
    assert pair in replaced("entry.go", ["// Printf logs.", *body], ["// Printf prints.", *edited])
    cut = ["//", PRINTF, "\tentry.setFormat = true", "", "\treturn entry"]
    cut_new = ["// Printf formats.", PRINTF, "\tentry.setFormat = format", "\treturn entry", "}"]
    assert replaced("entry.go", cut, cut_new) == [
        ("entry.setFormat = true", "entry.setFormat = format")
    ]
    # not a method's: indented, it recurs in every type of the file
    method = ["\tfunc (e *Entry) level() int {", "\t\treturn e.levelOf(1)", "\t\tx()"]
    method_new = ["// level.", method[0], "\t\treturn e.levelOf(2)", "\t\tx()"]
    assert replaced("e.go", method, method_new) == []
    # too little stays of the body line (an edited line's floor is unchanged)
    small = ["func f() int {", "\treturn 1", "}"]
    assert replaced("f.go", small, [small[0], "\treturn 2", "}"]) == []


def test_the_go_package_clause_is_the_files_package_name() -> None:
    facts = extract_triples("hooks/airbrake/airbrake.go:\npackage logrus_airbrake\n\nimport (")
    newer = extract_triples("hooks/airbrake/airbrake.go:\npackage airbrake\n\nimport (")
    assert len(facts) == 1 and len(newer) == 1
    assert (facts[0].subject, facts[0].relation) == (newer[0].subject, newer[0].relation)
    assert (facts[0].object, newer[0].object) == ("logrus_airbrake", "airbrake")
    # another file's package clause is another key
    other = extract_triples("hooks/syslog/syslog.go:\npackage logrus_syslog")
    assert (other[0].subject, other[0].relation) != (facts[0].subject, facts[0].relation)
    # not in other languages, not indented, not in prose
    assert extract_triples("setup.py:\npackage logrus_airbrake") == []
    assert extract_triples("main.go:\n    package x") == []
