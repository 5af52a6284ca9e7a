//! The C preprocessor subset LAB files are written in (see the module docs of `lab`): file
//! inclusion, conditional sections and macro expansion with hide sets, producing one token
//! stream for the assembler.
//!
//! About 1,050 lines, over the project's usual size: directives, include resolution and macro
//! expansion all work on the one `Pp` state (macro table, sources, token budget); `#if`
//! arithmetic lives in `cond`.

use std::collections::HashMap;
use std::rc::Rc;

use super::cond::CondExpr;
use super::lex::{lex, Interner, Kind, Pos, Sym, Tok};
use super::{IncludedFrom, LabError, LabErrorKind, LabOptions, Loader, HMD_DEF};

/// One opening of a source file.
pub(crate) struct Source {
    /// The name errors use.
    pub name: String,
    /// The resolved path (for the folder of nested includes); `None` for the built-in file.
    pub path: Option<String>,
    /// The `#include` that opened it.
    pub parent: Option<Pos>,
}

/// The preprocessed program.
pub(crate) struct Unit {
    pub names: Interner,
    pub toks: Vec<Tok>,
    pub sources: Vec<Source>,
}

impl Unit {
    /// An error at `pos`.
    pub(crate) fn error(&self, pos: Pos, kind: LabErrorKind, message: String) -> LabError {
        error_at(&self.sources, pos, kind, message)
    }
}

pub(crate) fn error_at(
    sources: &[Source],
    pos: Pos,
    kind: LabErrorKind,
    message: String,
) -> LabError {
    let name = |s: u32| {
        sources
            .get(s as usize)
            .map_or_else(|| "<input>".to_string(), |s| s.name.clone())
    };
    let mut included_from = Vec::new();
    let mut at = sources.get(pos.src as usize).and_then(|s| s.parent);
    while let Some(p) = at {
        if included_from.len() > sources.len() {
            break;
        }
        included_from.push(IncludedFrom {
            file: name(p.src),
            line: p.line,
            column: p.col,
        });
        at = sources.get(p.src as usize).and_then(|s| s.parent);
    }
    LabError {
        kind,
        file: name(pos.src),
        line: pos.line,
        column: pos.col,
        included_from,
        message: crate::text::message(&message),
    }
}

struct Macro {
    /// `None` for object-like macros.
    params: Option<Vec<Sym>>,
    body: Vec<Tok>,
}

struct Cond {
    /// Whether the enclosing section is active.
    outer: bool,
    /// Whether some branch of this conditional has been taken.
    taken: bool,
    /// Whether the current branch is active.
    active: bool,
    seen_else: bool,
    pos: Pos,
}

struct Pp<'a> {
    loader: &'a dyn Loader,
    opts: &'a LabOptions,
    names: Interner,
    sources: Vec<Source>,
    macros: HashMap<Sym, Macro>,
    out: Vec<Tok>,
    budget: u64,
    /// Hide-set names macro expansion may still record ([`LabOptions::max_expansion`]).
    hide_budget: u64,
    /// Source bytes that may still be read ([`LabOptions::max_source_bytes`]).
    source_budget: u64,
    /// The folders includes may come from: the root file's folder and the include folders,
    /// as normalised path components.
    roots: Vec<Vec<String>>,
    includes: u32,
    depth: u32,
    defined: Sym,
    lparen: Sym,
    rparen: Sym,
    comma: Sym,
    hash: Sym,
    hashhash: Sym,
}

type R<T> = Result<T, LabError>;

/// Preprocesses the file `root` read through `loader`.
pub(crate) fn preprocess(root: &str, loader: &dyn Loader, opts: &LabOptions) -> R<Unit> {
    let pp = Pp::new(loader, opts);
    let data = match loader.read(root, opts.max_file_bytes) {
        Ok(Some(d)) => d,
        Ok(None) => {
            return Err(pp.file_error(root, format!("cannot open {root}: no such file")));
        }
        Err(e) => return Err(pp.file_error(root, format!("cannot read {root}: {e}"))),
    };
    pp.run(root, Some(root.to_string()), &data)
}

/// Preprocesses `text` named `name` (includes resolve beside `name`).
pub(crate) fn preprocess_text(
    name: &str,
    text: &[u8],
    loader: &dyn Loader,
    opts: &LabOptions,
) -> R<Unit> {
    if text.len() as u64 > opts.max_file_bytes {
        let pp = Pp::new(loader, opts);
        return Err(pp.file_error(
            name,
            format!("{name} is larger than {} bytes", opts.max_file_bytes),
        ));
    }
    Pp::new(loader, opts).run(name, Some(name.to_string()), text)
}

/// The folder part of a `/`-separated path ("" for none).
fn parent_dir(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |i| &path[..i])
}

/// The components of a `/`- or `\\`-separated path with `.` dropped and `..` applied where it
/// can be (leading `..` kept): a lexical normal form to compare folders by.
fn normalize(path: &str) -> Vec<String> {
    // An absolute path keeps its root as a first component, so it never compares equal to a
    // relative one.
    let mut out: Vec<String> = Vec::new();
    if path.starts_with(['/', '\\']) {
        out.push("/".into());
    }
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| l != ".." && l != "/") => {
                out.pop();
            }
            ".." if out.last().is_some_and(|l| l == "/") => {}
            p => out.push(p.to_string()),
        }
    }
    out
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{}/{}", dir.trim_end_matches(['/', '\\']), name)
    }
}

impl<'a> Pp<'a> {
    fn new(loader: &'a dyn Loader, opts: &'a LabOptions) -> Self {
        let mut names = Interner::default();
        let defined = names.intern("defined");
        let lparen = names.intern("(");
        let rparen = names.intern(")");
        let comma = names.intern(",");
        let hash = names.intern("#");
        let hashhash = names.intern("##");
        Pp {
            loader,
            opts,
            names,
            sources: Vec::new(),
            macros: HashMap::new(),
            out: Vec::new(),
            budget: opts.max_tokens,
            hide_budget: opts.max_expansion,
            source_budget: opts.max_source_bytes,
            roots: opts.include_dirs.iter().map(|d| normalize(d)).collect(),
            includes: 0,
            depth: 0,
            defined,
            lparen,
            rparen,
            comma,
            hash,
            hashhash,
        }
    }

    fn file_error(&self, name: &str, message: String) -> LabError {
        LabError {
            kind: LabErrorKind::Include,
            file: name.to_string(),
            line: 0,
            column: 0,
            included_from: Vec::new(),
            message: crate::text::message(&message),
        }
    }

    fn err(&self, pos: Pos, kind: LabErrorKind, message: impl Into<String>) -> LabError {
        error_at(&self.sources, pos, kind, message.into())
    }

    fn limit(&self, pos: Pos) -> LabError {
        self.err(
            pos,
            LabErrorKind::Limit,
            format!(
                "the preprocessor produced more than {} tokens (LabOptions::max_tokens)",
                self.opts.max_tokens
            ),
        )
    }

    fn run(mut self, name: &str, path: Option<String>, data: &[u8]) -> R<Unit> {
        self.roots.insert(0, normalize(parent_dir(name)));
        self.file(name, path, None, data)?;
        Ok(Unit {
            names: self.names,
            toks: self.out,
            sources: self.sources,
        })
    }

    fn source_limit(&self, pos: Pos) -> LabError {
        self.err(
            pos,
            LabErrorKind::Limit,
            format!(
                "the source files and their #includes add up to more than {} bytes (LabOptions::max_source_bytes)",
                self.opts.max_source_bytes
            ),
        )
    }

    fn text(&self, t: &Tok) -> &str {
        self.names.text(t.sym)
    }

    /// Processes one file opening.
    fn file(
        &mut self,
        name: &str,
        path: Option<String>,
        parent: Option<Pos>,
        data: &[u8],
    ) -> R<()> {
        let src = self.sources.len() as u32;
        self.sources.push(Source {
            name: name.to_string(),
            path,
            parent,
        });
        if data.len() as u64 > self.source_budget {
            let pos = parent.unwrap_or(Pos {
                src,
                line: 0,
                col: 0,
            });
            return Err(self.source_limit(pos));
        }
        self.source_budget -= data.len() as u64;
        let toks = match lex(data, src, &mut self.names, &mut self.budget) {
            Ok(t) => t,
            Err((pos, None)) => return Err(self.limit(pos)),
            Err((pos, Some(m))) => return Err(self.err(pos, LabErrorKind::Syntax, m)),
        };
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Vec<Tok> = Vec::new();
        let mut lines = toks.split(|t| t.kind == Kind::Newline);
        let end_pos = toks.last().map_or(
            Pos {
                src,
                line: 1,
                col: 1,
            },
            |t| t.pos,
        );
        for line in &mut lines {
            let active = conds.last().map_or(true, |c| c.active);
            let Some(first) = line.first() else { continue };
            if first.sym != self.hash || first.kind != Kind::Punct {
                if active {
                    pending.extend_from_slice(line);
                }
                continue;
            }
            // A directive: flush the text before it.
            if !pending.is_empty() {
                let chunk = std::mem::take(&mut pending);
                let expanded = self.expand(chunk, 0)?;
                self.out.extend(expanded);
            }
            let Some(dir) = line.get(1) else { continue };
            let rest = &line[2..];
            let dname = self.text(dir).to_string();
            match dname.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let v = if !active {
                        false
                    } else if dname == "if" {
                        self.eval_if(dir.pos, rest)? != 0
                    } else {
                        let id = self.one_ident(dir.pos, rest, &dname)?;
                        self.macros.contains_key(&id) == (dname == "ifdef")
                    };
                    conds.push(Cond {
                        outer: active,
                        taken: v,
                        active: v,
                        seen_else: false,
                        pos: dir.pos,
                    });
                }
                "elif" => {
                    let Some(c) = conds.last() else {
                        return Err(self.err(dir.pos, LabErrorKind::Syntax, "#elif without #if"));
                    };
                    if c.seen_else {
                        return Err(self.err(dir.pos, LabErrorKind::Syntax, "#elif after #else"));
                    }
                    let (outer, taken) = (c.outer, c.taken);
                    let v = outer && !taken && self.eval_if(dir.pos, rest)? != 0;
                    let c = conds.last_mut().expect("checked above");
                    c.active = v;
                    c.taken |= v;
                }
                "else" => {
                    let Some(c) = conds.last_mut() else {
                        return Err(self.err(dir.pos, LabErrorKind::Syntax, "#else without #if"));
                    };
                    if c.seen_else {
                        return Err(self.err(dir.pos, LabErrorKind::Syntax, "second #else"));
                    }
                    c.seen_else = true;
                    c.active = c.outer && !c.taken;
                    c.taken = true;
                }
                "endif" => {
                    if conds.pop().is_none() {
                        return Err(self.err(dir.pos, LabErrorKind::Syntax, "#endif without #if"));
                    }
                }
                _ if !active => {}
                "define" => self.define(dir.pos, rest)?,
                "undef" => {
                    let id = self.one_ident(dir.pos, rest, "undef")?;
                    self.macros.remove(&id);
                }
                "include" => self.include(src, dir.pos, rest)?,
                "error" => {
                    let msg: Vec<&str> = rest.iter().map(|t| self.text(t)).collect();
                    return Err(self.err(
                        dir.pos,
                        LabErrorKind::User,
                        format!("#error {}", msg.join(" ")),
                    ));
                }
                "pragma" | "line" | "ident" => {}
                _ if dir.kind == Kind::Number => {} // `# 12 "file"` line markers
                other => {
                    return Err(self.err(
                        dir.pos,
                        LabErrorKind::Syntax,
                        format!("unknown directive #{other}"),
                    ))
                }
            }
        }
        if let Some(c) = conds.last() {
            return Err(self.err(c.pos, LabErrorKind::Syntax, "#if without #endif"));
        }
        if !pending.is_empty() {
            let expanded = self.expand(pending, 0)?;
            self.out.extend(expanded);
        }
        let _ = end_pos;
        Ok(())
    }

    fn one_ident(&self, pos: Pos, rest: &[Tok], what: &str) -> R<Sym> {
        match rest.first() {
            Some(t) if t.kind == Kind::Ident => Ok(t.sym),
            _ => Err(self.err(
                pos,
                LabErrorKind::Syntax,
                format!("#{what} needs a macro name"),
            )),
        }
    }

    fn define(&mut self, pos: Pos, rest: &[Tok]) -> R<()> {
        let name = self.one_ident(pos, rest, "define")?;
        if name == self.defined {
            return Err(self.err(pos, LabErrorKind::Syntax, "cannot define `defined`"));
        }
        let mut i = 1;
        let params = match rest.get(1) {
            Some(t) if t.sym == self.lparen && !t.space => {
                let mut ps = Vec::new();
                i = 2;
                loop {
                    match rest.get(i) {
                        Some(t) if t.sym == self.rparen && ps.is_empty() => {
                            i += 1;
                            break;
                        }
                        Some(t) if t.kind == Kind::Ident => {
                            if ps.contains(&t.sym) {
                                return Err(self.err(
                                    t.pos,
                                    LabErrorKind::Syntax,
                                    "duplicate macro parameter",
                                ));
                            }
                            ps.push(t.sym);
                            i += 1;
                            match rest.get(i) {
                                Some(t) if t.sym == self.comma => i += 1,
                                Some(t) if t.sym == self.rparen => {
                                    i += 1;
                                    break;
                                }
                                _ => {
                                    return Err(self.err(
                                        pos,
                                        LabErrorKind::Syntax,
                                        "expected `,` or `)` in macro parameters",
                                    ))
                                }
                            }
                        }
                        _ => {
                            return Err(self.err(
                                pos,
                                LabErrorKind::Syntax,
                                "expected a parameter name in #define",
                            ))
                        }
                    }
                }
                Some(ps)
            }
            _ => None,
        };
        let body = rest[i.min(rest.len())..].to_vec();
        if body.first().is_some_and(|t| t.sym == self.hashhash)
            || body.last().is_some_and(|t| t.sym == self.hashhash)
        {
            return Err(self.err(
                pos,
                LabErrorKind::Syntax,
                "`##` cannot start or end a macro body",
            ));
        }
        self.macros.insert(name, Macro { params, body });
        Ok(())
    }

    fn include(&mut self, src: u32, pos: Pos, rest: &[Tok]) -> R<()> {
        // The name: a string literal, or `<` tokens `>`; or macros expanding to either.
        let toks = if rest.first().is_some_and(|t| t.kind == Kind::Ident) {
            self.expand(rest.to_vec(), 0)?
        } else {
            rest.to_vec()
        };
        let name = match toks.first() {
            Some(t) if t.kind == Kind::Str && self.text(t).starts_with('"') => {
                let s = self.text(t);
                s[1..s.len() - 1].to_string()
            }
            Some(t) if self.text(t) == "<" => {
                let mut s = String::new();
                let mut closed = false;
                for t in &toks[1..] {
                    if self.text(t) == ">" {
                        closed = true;
                        break;
                    }
                    s.push_str(self.text(t));
                }
                if !closed {
                    return Err(self.err(pos, LabErrorKind::Syntax, "#include <name missing `>`"));
                }
                s
            }
            _ => {
                return Err(self.err(
                    pos,
                    LabErrorKind::Syntax,
                    "#include expects \"file\" or <file>",
                ))
            }
        };
        self.includes += 1;
        if self.includes > self.opts.max_includes {
            return Err(self.err(
                pos,
                LabErrorKind::Limit,
                format!(
                    "more than {} #includes (LabOptions::max_includes)",
                    self.opts.max_includes
                ),
            ));
        }
        if self.depth >= self.opts.max_include_depth {
            return Err(self.err(
                pos,
                LabErrorKind::Limit,
                format!(
                    "#include nested deeper than {} (LabOptions::max_include_depth)",
                    self.opts.max_include_depth
                ),
            ));
        }
        let here = self.sources[src as usize].path.clone();
        let mut dirs: Vec<String> = Vec::new();
        if let Some(h) = &here {
            dirs.push(parent_dir(h).to_string());
        }
        dirs.extend(self.opts.include_dirs.iter().cloned());
        // Includes stay inside the root file's folder tree and the include folders: a name
        // that leads out of them with `..` is refused (named, never read).
        dirs.retain(|d| {
            let p = normalize(&join(d, &name));
            self.roots.iter().any(|r| {
                p.len() > r.len() && p.starts_with(r) && !p[r.len()..].iter().any(|c| c == "..")
            })
        });
        let base = name.rsplit(['/', '\\']).next().unwrap_or(&name);
        let builtin = self.opts.builtin_hmd_def && base.eq_ignore_ascii_case("hmd.def");
        if dirs.is_empty() && !builtin {
            return Err(self.err(
                pos,
                LabErrorKind::Include,
                format!(
                    "#include {}: leads outside the source's folder and the include folders (-I); not read",
                    crate::text::shown(&name)
                ),
            ));
        }
        let mut found = None;
        for d in &dirs {
            match self.resolve(d, &name) {
                Ok(Some(p)) => {
                    found = Some(p);
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    return Err(self.err(pos, LabErrorKind::Include, format!("{name}: {e}")));
                }
            }
        }
        if let Some(p) = &found {
            self.check_resolved(pos, &name, p)?;
        }
        let (path, data) = match found {
            Some(p) => match self
                .loader
                .read(&p, self.opts.max_file_bytes.min(self.source_budget))
            {
                Ok(Some(d)) => (Some(p), d),
                Err(_) if self.source_budget < self.opts.max_file_bytes => {
                    return Err(self.source_limit(pos))
                }
                Ok(None) => {
                    return Err(self.err(pos, LabErrorKind::Include, format!("cannot open {p}")))
                }
                Err(e) => {
                    return Err(self.err(
                        pos,
                        LabErrorKind::Include,
                        format!("cannot read {p}: {e}"),
                    ))
                }
            },
            None => {
                let base = name.rsplit(['/', '\\']).next().unwrap_or(&name);
                if self.opts.builtin_hmd_def && base.eq_ignore_ascii_case("hmd.def") {
                    (None, HMD_DEF.as_bytes().to_vec())
                } else {
                    return Err(self.err(
                        pos,
                        LabErrorKind::Include,
                        format!(
                            "cannot find #include file {name} (searched beside the file{})",
                            if self.opts.include_dirs.is_empty() {
                                ""
                            } else {
                                " and in the include folders"
                            }
                        ),
                    ));
                }
            }
        };
        // A file that includes itself through the chain would recurse forever.
        let key = path.clone().unwrap_or_else(|| "<hmd.def>".to_string());
        let mut at = Some(src);
        while let Some(s) = at {
            let srcinfo = &self.sources[s as usize];
            let k = srcinfo
                .path
                .clone()
                .unwrap_or_else(|| "<hmd.def>".to_string());
            if k == key {
                return Err(self.err(
                    pos,
                    LabErrorKind::Include,
                    format!("include cycle: {name} includes itself through the chain"),
                ));
            }
            at = srcinfo.parent.map(|p| p.src);
        }
        let shown = path
            .clone()
            .unwrap_or_else(|| "<built-in hmd.def>".to_string());
        self.depth += 1;
        let r = self.file(&shown, path, Some(pos), &data);
        self.depth -= 1;
        r
    }

    /// Refuses an include whose file, its symbolic links followed, lies outside every folder
    /// includes may come from (the root file's folder tree and the include folders, resolved the
    /// same way): the lexical check before it compares names as written. The message names the
    /// `#include` line's name only, never the file it resolves to nor a byte of it.
    fn check_resolved(&self, pos: Pos, name: &str, path: &str) -> R<()> {
        let Some(real) = self.loader.canonical(path) else {
            return Ok(());
        };
        let real = normalize(&real);
        let inside = self.roots.iter().any(|r| {
            let root = self
                .loader
                .canonical(&r.join("/").replacen("//", "/", 1))
                .map(|c| normalize(&c));
            root.is_some_and(|root| real.len() > root.len() && real.starts_with(&root))
        });
        if inside {
            return Ok(());
        }
        Err(self.err(
            pos,
            LabErrorKind::Include,
            format!(
                "#include {}: resolves (through a symbolic link) outside the source's folder and the include folders (-I); not read",
                crate::text::shown(name)
            ),
        ))
    }

    /// Finds `name` (components separated by `/` or `\`) under `dir`, each component matched
    /// exactly first, then case-insensitively.
    fn resolve(&self, dir: &str, name: &str) -> std::io::Result<Option<String>> {
        let mut at = dir.to_string();
        let parts: Vec<&str> = name.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return Ok(None);
        }
        for (k, part) in parts.iter().enumerate() {
            if *part == "." {
                continue;
            }
            if *part == ".." {
                at = join(&at, "..");
                continue;
            }
            let entries = self.loader.list(&at)?;
            let hit = entries
                .iter()
                .find(|e| e == part)
                .or_else(|| entries.iter().find(|e| e.eq_ignore_ascii_case(part)));
            match hit {
                Some(e) => at = join(&at, e),
                None => return Ok(None),
            }
            if k + 1 == parts.len() {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    fn charge(&mut self, n: usize, pos: Pos) -> R<()> {
        if (n as u64) > self.budget {
            return Err(self.limit(pos));
        }
        self.budget -= n as u64;
        Ok(())
    }

    /// Charges `n` hide-set names against [`LabOptions::max_expansion`].
    fn charge_hide(&mut self, n: usize, pos: Pos) -> R<()> {
        if (n as u64) > self.hide_budget {
            return Err(self.err(
                pos,
                LabErrorKind::Limit,
                format!(
                    "macro expansion recorded more than {} hide-set names (LabOptions::max_expansion): macros nest too deep",
                    self.opts.max_expansion
                ),
            ));
        }
        self.hide_budget -= n as u64;
        Ok(())
    }

    /// Adds hide set `hs` to every token: one shared set for tokens that had none, and one new
    /// set per distinct set they had (tokens of one argument share theirs). Each new set is
    /// charged by its length, so deep macro chains cost bounded memory and time.
    fn paint(&mut self, toks: &mut [Tok], hs: Vec<Sym>, pos: Pos) -> R<()> {
        self.charge_hide(hs.len(), pos)?;
        let shared: Rc<[Sym]> = hs.into();
        // The last hide set seen and what it became.
        let mut last: Option<(HideSet, HideSet)> = None;
        for x in toks {
            x.hide = Some(match x.hide.take() {
                None => shared.clone(),
                Some(h) => match &last {
                    Some((from, to)) if Rc::ptr_eq(from, &h) => to.clone(),
                    _ => {
                        self.charge_hide(h.len() + shared.len(), pos)?;
                        let to: Rc<[Sym]> = add_hide(Some(&h), &shared).into();
                        last = Some((h, to.clone()));
                        to
                    }
                },
            });
        }
        Ok(())
    }

    /// Expands macros in `input` (C 6.10.3 with hide sets).
    fn expand(&mut self, input: Vec<Tok>, depth: u32) -> R<Vec<Tok>> {
        if depth > self.opts.max_nesting {
            let pos = input.first().map_or(
                Pos {
                    src: 0,
                    line: 0,
                    col: 0,
                },
                |t| t.pos,
            );
            return Err(self.err(
                pos,
                LabErrorKind::Limit,
                format!(
                    "macro arguments nested deeper than {} (LabOptions::max_nesting)",
                    self.opts.max_nesting
                ),
            ));
        }
        // A stack with the next token on top.
        let mut stack: Vec<Tok> = input;
        stack.reverse();
        let mut out = Vec::new();
        while let Some(t) = stack.pop() {
            if t.kind != Kind::Ident || t.hide.as_deref().is_some_and(|h| h.contains(&t.sym)) {
                out.push(t);
                continue;
            }
            let Some(m) = self.macros.get(&t.sym) else {
                out.push(t);
                continue;
            };
            let Some(params) = m.params.clone() else {
                let body = m.body.clone();
                let hs = add_hide(t.hide.as_deref(), &[t.sym]);
                let mut r = self.subst(&body, &[], &[], &[], &t)?;
                self.charge(r.len(), t.pos)?;
                self.paint(&mut r, hs, t.pos)?;
                stack.extend(r.into_iter().rev());
                continue;
            };
            // Function-like: needs `(` next (newlines between count as space).
            let mut k = stack.len();
            while k > 0 && stack[k - 1].kind == Kind::Newline {
                k -= 1;
            }
            if k == 0 || stack[k - 1].sym != self.lparen || stack[k - 1].kind != Kind::Punct {
                out.push(t);
                continue;
            }
            stack.truncate(k - 1);
            // Collect the arguments.
            let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
            let mut level = 0u32;
            let rp = loop {
                let Some(a) = stack.pop() else {
                    return Err(self.err(
                        t.pos,
                        LabErrorKind::Syntax,
                        format!(
                            "unterminated call of macro {} (no closing `)`)",
                            self.text(&t)
                        ),
                    ));
                };
                if a.kind == Kind::Newline {
                    continue;
                }
                if a.kind == Kind::Punct {
                    if a.sym == self.lparen {
                        level += 1;
                    } else if a.sym == self.rparen {
                        if level == 0 {
                            break a;
                        }
                        level -= 1;
                    } else if a.sym == self.comma && level == 0 {
                        args.push(Vec::new());
                        continue;
                    }
                }
                args.last_mut().expect("never empty").push(a);
            };
            if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                args.clear();
            }
            if args.len() != params.len() {
                return Err(self.err(
                    t.pos,
                    LabErrorKind::Syntax,
                    format!(
                        "macro {} takes {} argument(s), {} given",
                        self.text(&t),
                        params.len(),
                        args.len()
                    ),
                ));
            }
            let body = self
                .macros
                .get(&t.sym)
                .map(|m| m.body.clone())
                .unwrap_or_default();
            let mut expanded = Vec::with_capacity(args.len());
            for a in &args {
                // Charged like output, so nested calls cannot make quadratic work for free.
                self.charge(a.len(), t.pos)?;
                expanded.push(self.expand(a.clone(), depth + 1)?);
            }
            let inter: Vec<Sym> = match (t.hide.as_deref(), rp.hide.as_deref()) {
                // Both sorted: a binary search per name.
                (Some(a), Some(b)) => {
                    self.charge_hide(a.len(), t.pos)?;
                    a.iter()
                        .copied()
                        .filter(|x| b.binary_search(x).is_ok())
                        .collect()
                }
                _ => Vec::new(),
            };
            let hs = add_hide(Some(&inter), &[t.sym]);
            let mut r = self.subst(&body, &params, &args, &expanded, &t)?;
            self.charge(r.len(), t.pos)?;
            self.paint(&mut r, hs, t.pos)?;
            stack.extend(r.into_iter().rev());
        }
        Ok(out)
    }

    /// Substitutes arguments into a macro body, with `#` and `##`; every token takes the
    /// position of the invocation.
    fn subst(
        &mut self,
        body: &[Tok],
        params: &[Sym],
        raw: &[Vec<Tok>],
        expanded: &[Vec<Tok>],
        call: &Tok,
    ) -> R<Vec<Tok>> {
        let at = |t: &Tok| -> Tok {
            Tok {
                pos: call.pos,
                ..t.clone()
            }
        };
        let param = |s: Sym| params.iter().position(|&p| p == s);
        let mut out: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            // `# param`: stringize.
            if !params.is_empty() && t.sym == self.hash && t.kind == Kind::Punct {
                if let Some(n) = body.get(i + 1).and_then(|n| param(n.sym)) {
                    let mut s = String::from("\"");
                    for (k, a) in raw[n].iter().enumerate() {
                        if k > 0 && a.space {
                            s.push(' ');
                        }
                        for c in self.names.text(a.sym).chars() {
                            if matches!(c, '"' | '\\') && a.kind == Kind::Str {
                                s.push('\\');
                            }
                            s.push(c);
                        }
                    }
                    s.push('"');
                    let sym = self.names.intern(&s);
                    out.push(Tok {
                        kind: Kind::Str,
                        sym,
                        pos: call.pos,
                        space: t.space,
                        hide: None,
                    });
                    i += 2;
                    continue;
                }
            }
            if t.sym == self.hashhash && t.kind == Kind::Punct {
                // Paste the last output token with the next body token (or argument).
                i += 1;
                let Some(next) = body.get(i) else { break };
                let mut rhs: Vec<Tok> = match param(next.sym) {
                    Some(n) => raw[n].iter().map(at).collect(),
                    None => vec![at(next)],
                };
                i += 1;
                let lhs = out.pop();
                if rhs.is_empty() {
                    out.extend(lhs);
                    continue;
                }
                let first = rhs.remove(0);
                match lhs {
                    None => out.push(first),
                    Some(l) => {
                        let text =
                            format!("{}{}", self.names.text(l.sym), self.names.text(first.sym));
                        let mut budget = 1 << 20;
                        let toks = lex(text.as_bytes(), call.pos.src, &mut self.names, &mut budget)
                            .ok()
                            .filter(|v| v.len() == 1);
                        let Some(mut v) = toks else {
                            return Err(self.err(
                                call.pos,
                                LabErrorKind::Syntax,
                                format!("`##` does not make one token of `{text}`"),
                            ));
                        };
                        let mut p = v.remove(0);
                        p.pos = call.pos;
                        p.space = l.space;
                        p.hide = l.hide;
                        out.push(p);
                    }
                }
                out.extend(rhs);
                continue;
            }
            match param(t.sym) {
                Some(n) if t.kind == Kind::Ident => {
                    let next_paste = body.get(i + 1).is_some_and(|n| n.sym == self.hashhash);
                    let src = if next_paste { &raw[n] } else { &expanded[n] };
                    let mut first = true;
                    for a in src {
                        let mut x = at(a);
                        if first {
                            x.space = t.space;
                            first = false;
                        }
                        out.push(x);
                    }
                }
                _ => out.push(at(t)),
            }
            i += 1;
        }
        Ok(out)
    }

    /// Evaluates an `#if` / `#elif` expression.
    fn eval_if(&mut self, pos: Pos, rest: &[Tok]) -> R<i64> {
        // `defined X` and `defined(X)` first, then macro expansion, then identifiers are 0.
        let mut toks = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let t = &rest[i];
            if t.kind == Kind::Ident && t.sym == self.defined {
                let (name, skip) = match (rest.get(i + 1), rest.get(i + 2), rest.get(i + 3)) {
                    (Some(a), Some(b), Some(c))
                        if a.sym == self.lparen
                            && b.kind == Kind::Ident
                            && c.sym == self.rparen =>
                    {
                        (b.sym, 4)
                    }
                    (Some(a), _, _) if a.kind == Kind::Ident => (a.sym, 2),
                    _ => {
                        return Err(self.err(t.pos, LabErrorKind::Syntax, "`defined` needs a name"))
                    }
                };
                let v = if self.macros.contains_key(&name) {
                    "1"
                } else {
                    "0"
                };
                let sym = self.names.intern(v);
                toks.push(Tok {
                    kind: Kind::Number,
                    sym,
                    ..t.clone()
                });
                i += skip;
                continue;
            }
            toks.push(t.clone());
            i += 1;
        }
        let toks = self.expand(toks, 0)?;
        let mut e = CondExpr {
            names: &self.names,
            sources: &self.sources,
            max_nesting: self.opts.max_nesting,
            toks: &toks,
            i: 0,
            pos,
            depth: 0,
        };
        let v = e.ternary()?;
        if e.i < toks.len() {
            return Err(e.fail("unexpected token in #if expression"));
        }
        Ok(v)
    }
}

/// A token's hide set, shared between tokens.
type HideSet = Rc<[Sym]>;

/// The sorted union of hide set `h` and the sorted names `add` (a merge, linear in both).
fn add_hide(h: Option<&[Sym]>, add: &[Sym]) -> Vec<Sym> {
    let h = h.unwrap_or(&[]);
    let mut v = Vec::with_capacity(h.len() + add.len());
    let (mut i, mut j) = (0, 0);
    while i < h.len() || j < add.len() {
        let next = match (h.get(i), add.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                i += 1;
                j += 1;
                a
            }
            (Some(&a), Some(&b)) if a < b => {
                i += 1;
                a
            }
            (Some(_), Some(&b)) | (None, Some(&b)) => {
                j += 1;
                b
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (None, None) => break,
        };
        v.push(next);
    }
    v
}
