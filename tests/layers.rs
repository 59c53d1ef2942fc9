//! The module graph of `src/`, read from the source's paths (`use crate::…`, `super::…`,
//! `self::…`, in `use` items and inline): no module depends on itself through others, and
//! the layers point one way (`gx` on nothing of ours, `render` never on `formats`, …).
//!
//! Two habits are counted too: the CLI stays thin (under 2,000 lines) and JSON comes from
//! serde types (at most 10 `json!` literals outside tests).
//!
//! Test-only code (`#[cfg(test)]` modules) does not count. No circle is known; one listed
//! in `KNOWN_CIRCLES` must still exist (so the list only shrinks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles that exist today, each as its sorted module paths. Remove one when it is broken.
const KNOWN_CIRCLES: &[&[&str]] = &[];

/// Top-level modules and what they must never use.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "gx",
        &[
            "formats", "anim", "model", "load", "render", "ui", "cli", "edit", "export", "schema",
            "session", "dff",
        ],
    ),
    (
        "formats",
        &[
            "anim", "model", "load", "render", "ui", "cli", "edit", "export", "session", "dff",
        ],
    ),
    (
        "anim",
        &[
            "gx", "model", "load", "render", "ui", "cli", "edit", "export", "session", "dff",
        ],
    ),
    (
        "model",
        &[
            "formats", "load", "render", "ui", "cli", "edit", "export", "session", "dff",
        ],
    ),
    (
        "render",
        &[
            "formats", "load", "ui", "cli", "edit", "export", "schema", "session", "dff",
        ],
    ),
    (
        "load",
        &["render", "ui", "cli", "edit", "export", "session", "dff"],
    ),
    // The camera's math, under the core and the renderer alike.
    (
        "camera",
        &[
            "formats", "anim", "model", "load", "render", "ui", "cli", "edit", "export", "schema",
            "session", "dff",
        ],
    ),
    // The application core: no GPU, no egui, no front end.
    ("session", &["render", "ui", "cli", "export", "dff"]),
    ("edit", &["render", "ui", "cli", "export", "session", "dff"]),
    ("export", &["render", "ui", "cli", "edit", "dff"]),
    // GX command streams: from the renderer's scene, never from files or front ends.
    (
        "dff",
        &["formats", "load", "ui", "cli", "edit", "export", "session"],
    ),
];

type Module = Vec<String>;

/// Every module file under `src/` by its path (`["render", "scene"]`); `lib.rs` is `[]`.
fn module_files(src: &Path) -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("src/ lists").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    files
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(src).ok()?.with_extension("");
            let mut parts: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|l| l == "mod") {
                parts.pop();
            }
            if parts == ["lib"] || parts == ["main"] {
                parts.clear();
            }
            Some((parts, p))
        })
        .collect()
}

/// Modules declared `#[cfg(test)] mod name;` (test-only files).
fn test_only_children(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut test_attr = false;
    for line in source.lines().map(str::trim) {
        if line == "#[cfg(test)]" {
            test_attr = true;
            continue;
        }
        if test_attr && let Some(name) = line.strip_prefix("mod ").and_then(|r| r.strip_suffix(';'))
        {
            out.push(name.trim().to_owned());
        }
        if !line.starts_with("#[") {
            test_attr = false;
        }
    }
    out
}

/// The source without comments, string contents and `#[cfg(test)] mod … { … }` blocks.
fn code_only(source: &str) -> String {
    // Blank out comments and literals so braces and paths inside them do not count.
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            // A raw string (r"…", r#"…"#) ends at its own quote-and-hashes.
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && !source[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let hashes = source[i + 1..].bytes().take_while(|&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                i = source[body..]
                    .find(&close)
                    .map_or(b.len(), |n| body + n + close.len());
                out.push_str("\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A char literal ('{', '\n'); lifetimes ('a) are left alone.
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2 + source[i + 2..].find('\'').map_or(b.len(), |n| n + 1);
                out.push_str("' '");
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                i += 3;
                out.push_str("' '");
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    // Cut `#[cfg(test)]` inline modules (attribute, more attributes, `mod x {`, the block).
    let mut code = out;
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        let Some(brace) = rest.find(['{', ';']) else {
            break;
        };
        let head = &rest[..brace];
        let end = if rest.as_bytes()[brace] == b'{' && head.contains("mod ") {
            let mut depth = 0usize;
            let mut end = rest.len();
            for (k, ch) in rest[brace..].char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = brace + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        } else {
            // A test-only item other than an inline module: drop just the attribute.
            "#[cfg(test)]".len()
        };
        code.replace_range(at..at + end, "");
    }
    code
}

/// The module a path names: its longest prefix that is a module file.
fn resolve(modules: &BTreeMap<Module, PathBuf>, path: &[String]) -> Option<Module> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| modules.contains_key(m))
}

/// `crate::a::b`, `super::x`, `self::y` and `use a::{b, c::d}` groups in `code`, as absolute
/// module paths seen from module `at` (`super` of `a/b.rs` and of `a/b/mod.rs` is `a`).
fn referenced_paths(code: &str, at: &Module) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        for (pos, _) in code.match_indices(root) {
            if code[..pos].chars().next_back().is_some_and(ident) {
                continue;
            }
            // The path: segments joined by `::`, possibly ending in a `{…}` group.
            let rest = &code[pos..];
            let mut segments: Vec<String> = Vec::new();
            let mut cursor = 0;
            let mut group = None;
            loop {
                let seg_len = rest[cursor..].chars().take_while(|&c| ident(c)).count();
                if seg_len == 0 {
                    if rest[cursor..].starts_with('{') {
                        let close = rest[cursor..].find('}').map_or(rest.len(), |n| cursor + n);
                        group = Some(&rest[cursor + 1..close]);
                    }
                    break;
                }
                segments.push(rest[cursor..cursor + seg_len].to_owned());
                cursor += seg_len;
                if rest[cursor..].starts_with("::") {
                    cursor += 2;
                } else {
                    break;
                }
            }
            let mut base: Vec<String> = match segments.first().map(String::as_str) {
                Some("crate") => Vec::new(),
                Some("self") => at.clone(),
                // `super` from `a/b.rs` is `a`; from `a/b/mod.rs` it is `a` too.
                Some("super") => at[..at.len().saturating_sub(1)].to_vec(),
                _ => continue,
            };
            let mut tail = &segments[1..];
            while tail.first().is_some_and(|s| s == "super") {
                base.pop();
                tail = &tail[1..];
            }
            base.extend(tail.iter().cloned());
            match group {
                Some(items) => {
                    for item in items.split(',') {
                        let item: Vec<String> = item
                            .trim()
                            .split("::")
                            .map(|s| s.split_whitespace().next().unwrap_or("").to_owned())
                            .filter(|s| !s.is_empty() && s != "self")
                            .collect();
                        let mut full = base.clone();
                        full.extend(item);
                        out.push(full);
                    }
                }
                None => out.push(base),
            }
        }
    }
    out
}

/// Each module's dependencies on the other modules.
fn module_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = module_files(&src);
    // Test-only file modules do not count.
    let test_only: Vec<Module> = modules
        .iter()
        .flat_map(|(m, p)| {
            let source = std::fs::read_to_string(p).expect("source reads");
            test_only_children(&source).into_iter().map(move |c| {
                let mut child = m.clone();
                child.push(c);
                child
            })
        })
        .collect();
    for m in test_only {
        modules.remove(&m);
    }
    let mut graph = BTreeMap::new();
    for (m, path) in &modules {
        let source = std::fs::read_to_string(path).expect("source reads");
        let deps: BTreeSet<Module> = referenced_paths(&code_only(&source), m)
            .iter()
            .filter_map(|p| resolve(&modules, p))
            .filter(|d| d != m && !d.is_empty())
            .collect();
        graph.insert(m.clone(), deps);
    }
    graph
}

/// Strongly connected components of more than one module (Tarjan), each sorted.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g Module) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            for w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    component.push(w.join("::"));
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found.sort();
    walk.found
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let found = circles(&module_graph());
    let known: Vec<Vec<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
        .collect();
    let new: Vec<_> = found.iter().filter(|c| !known.contains(c)).collect();
    assert!(new.is_empty(), "module circles: {new:#?}");
    let gone: Vec<_> = known.iter().filter(|c| !found.contains(c)).collect();
    assert!(
        gone.is_empty(),
        "these circles are broken: remove them from KNOWN_CIRCLES: {gone:#?}"
    );
}

#[test]
fn layers_point_one_way() {
    let graph = module_graph();
    let mut top: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (m, deps) in &graph {
        let Some(from) = m.first() else { continue };
        for d in deps {
            if d[0] != *from {
                top.entry(from.as_str()).or_default().insert(d[0].as_str());
            }
        }
    }
    let mut broken = Vec::new();
    for (layer, forbidden) in FORBIDDEN {
        for dep in top.get(layer).into_iter().flatten() {
            if forbidden.contains(dep) {
                broken.push(format!("{layer} uses {dep}"));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}\nall layers: {top:#?}");
    // The layers themselves form no circle either.
    let layer_graph: BTreeMap<Module, BTreeSet<Module>> = top
        .iter()
        .map(|(k, v)| {
            (
                vec![(*k).to_owned()],
                v.iter().map(|d| vec![(*d).to_owned()]).collect(),
            )
        })
        .chain(
            graph
                .keys()
                .filter_map(|m| m.first())
                .filter(|m| !top.contains_key(m.as_str()))
                .map(|m| (vec![m.clone()], BTreeSet::new())),
        )
        .collect();
    assert_eq!(circles(&layer_graph), Vec::<Vec<String>>::new());
}

/// The reader itself: paths in comments, strings and test modules do not count; groups,
/// `super` and `self` resolve.
#[test]
fn the_reader_finds_what_the_code_uses() {
    let source = r##"
        use super::{a::X, b};
        use crate::c::d::Thing;
        // crate::commented::out
        fn f() { let _ = "crate::quoted"; let _ = '{'; self::inner(); }
        const RAW: &str = r#"a "crate::raw" { b"#;
        #[cfg(test)]
        #[allow(dead_code)]
        mod tests { use crate::tested; fn g() { if true { } } }
        fn h() -> crate::e::Y { todo() }
    "##;
    let at: Module = vec!["m".into(), "n".into()];
    let paths = referenced_paths(&code_only(source), &at);
    let joined: BTreeSet<String> = paths.iter().map(|p| p.join("::")).collect();
    let expect: BTreeSet<String> = ["m::a::X", "m::b", "c::d::Thing", "m::n::inner", "e::Y"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(joined, expect);
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("folder lists").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The command line only parses, dispatches and prints: reports and their text live with
/// the schemas, the work in the library.
#[test]
fn the_cli_stays_thin() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let lines: usize = rust_files(&cli)
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .expect("source reads")
                .lines()
                .count()
        })
        .sum();
    assert!(lines < 2000, "src/cli has {lines} lines");
}

/// JSON is shaped by serde types (one schema per report), not by `json!` literals; the few
/// left build small `extras` objects.
#[test]
fn json_is_built_from_serde_types() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for p in rust_files(&src) {
        let source = std::fs::read_to_string(&p).expect("source reads");
        // Test-only files are declared `#[cfg(test)] mod name;` by their parent.
        let stem = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        let parent = p.parent().expect("in src/");
        let declared_in = [parent.join("mod.rs"), parent.with_extension("rs")];
        if declared_in.iter().any(|d| {
            std::fs::read_to_string(d).is_ok_and(|s| test_only_children(&s).contains(&stem))
        }) {
            continue;
        }
        let n = code_only(&source).matches("json!").count();
        if n > 0 {
            found.push((p.strip_prefix(&src).unwrap_or(&p).display().to_string(), n));
        }
    }
    let total: usize = found.iter().map(|(_, n)| n).sum();
    assert!(
        total <= 10,
        "{total} json! literals outside tests: {found:?}"
    );
}

/// The functions in `code` whose parameters name `ty` (as a whole word), by name.
fn functions_taking(code: &str, ty: &str) -> Vec<String> {
    let word = |s: &str, at: usize, len: usize| {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        !s[..at].ends_with(ident) && !s[at + len..].starts_with(ident)
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if !word(code, at, 2) {
            continue;
        }
        let rest = &code[at + 3..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = rest.find('(') else { continue };
        let mut depth = 0usize;
        let mut close = rest.len();
        for (k, ch) in rest[open..].char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let params = &rest[open..close];
        if params
            .match_indices(ty)
            .any(|(k, _)| word(params, k, ty.len()))
        {
            out.push(name);
        }
    }
    out
}

/// Panels receive the part of the state they show, not the whole viewer state: the panels
/// that show the core name no `AppState`, and the functions under `src/ui/panels` that take
/// it (the layout and the panels that orchestrate every part: top bar, menus and windows,
/// file browser, central view) may only become fewer.
#[test]
fn panels_take_what_they_show() {
    /// Functions under src/ui/panels (outside tests) that take `AppState` today.
    const MOST: usize = 23;
    const CORE_PANELS: &[&str] = &[
        "checker",
        "history",
        "inspector",
        "lights",
        "material",
        "mp3_material",
        "room",
        "skeleton",
        "stage_strip",
        "stages",
        "texture",
        "timeline",
        "vertex",
        "wgsl",
        "world_map",
        "worlds",
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui/panels");
    let test_only =
        test_only_children(&std::fs::read_to_string(dir.join("mod.rs")).expect("mod.rs reads"));
    let mut taking = Vec::new();
    for p in rust_files(&dir) {
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if test_only.iter().any(|t| t == stem) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&p).expect("source reads"));
        if CORE_PANELS.contains(&stem) {
            assert!(
                !code.contains("AppState"),
                "the {stem} panel names AppState: give it what it shows"
            );
        }
        taking.extend(
            functions_taking(&code, "AppState")
                .into_iter()
                .map(|f| format!("{stem}::{f}")),
        );
    }
    for core in CORE_PANELS {
        assert!(
            dir.join(format!("{core}.rs")).exists(),
            "{core}.rs is gone: update the list"
        );
    }
    assert!(
        taking.len() <= MOST,
        "{} panel functions take AppState (at most {MOST}): {taking:?}",
        taking.len()
    );
}

#[test]
fn the_panel_counter_reads_signatures() {
    let code = "fn a(s: &mut AppState) {} fn b(x: u8,\n y: &AppStateX) {} \
                fn c<'a>(p: Panel<'a>, f: impl Fn(&AppState)) {} fn d() -> AppState { x }";
    assert_eq!(functions_taking(code, "AppState"), ["a", "c"]);
}
