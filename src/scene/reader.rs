//! Reading a TOML document into typed specs while collecting every problem with its position:
//! a `TableReader` hands out values by their declarations ([`super::keys`]: the defaults and
//! ranges come from there, and a key its table does not declare cannot be asked for), remembers
//! which keys it was asked for, and on `finish` reports the keys nobody asked for, with a "did you
//! mean" hint.

use std::cell::RefCell;
use std::ops::Range;

use toml::de::{DeTable, DeValue};

use super::error::Diagnostic;
use super::keys::{DefaultValue, Key, Table, Ty};

type Spanned<T> = toml::Spanned<T>;

/// Problems listed in full; beyond them a listing says how many more there are.
pub const LISTED: usize = 50;

/// Collected problems of one document.
pub struct Diagnostics<'s> {
    src: &'s str,
    /// The file the document came from, when it came from one (paths in it are relative to it).
    file: Option<std::path::PathBuf>,
    /// Byte offset of the start of every line, for positions in O(log n) (a file with 200 000
    /// problems must not be scanned 200 000 times).
    line_starts: Vec<usize>,
    items: RefCell<Vec<Diagnostic>>,
    /// Values read under a former name: not problems, said beside the scene.
    deprecations: RefCell<Vec<Diagnostic>>,
    /// The key paths problems were reported at, for [`Diagnostics::reported_at`].
    keys: RefCell<std::collections::BTreeSet<String>>,
}

impl<'s> Diagnostics<'s> {
    pub fn new(src: &'s str) -> Self {
        let line_starts = std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Diagnostics { src, file: None, line_starts, items: RefCell::default(), deprecations: RefCell::default(), keys: RefCell::default() }
    }

    /// Names the file the document came from.
    pub fn with_file(mut self, path: &std::path::Path) -> Self {
        self.file = Some(path.to_path_buf());
        self
    }

    /// The document's text at `span`.
    pub fn text(&self, span: Range<usize>) -> &'s str {
        self.src.get(span).unwrap_or("")
    }

    /// The file the document came from.
    pub fn file(&self) -> Option<&std::path::Path> {
        self.file.as_deref()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.src.len());
        while !self.src.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let col = self.src[self.line_starts[line - 1]..offset].chars().count() + 1;
        (line, col)
    }

    pub fn error(&self, span: Range<usize>, key: &str, message: impl Into<String>, hint: Option<String>) {
        let (line, col) = self.line_col(span.start);
        self.items.borrow_mut().push(Diagnostic { line, col, key: key.to_string(), message: message.into(), hint });
        self.keys.borrow_mut().insert(key.to_string());
    }

    /// Notes a value read under a former name (no problem: the scene still loads).
    pub fn deprecated(&self, span: Range<usize>, key: &str, message: impl Into<String>, hint: Option<String>) {
        let (line, col) = self.line_col(span.start);
        self.deprecations.borrow_mut().push(Diagnostic { line, col, key: key.to_string(), message: message.into(), hint });
    }

    /// The deprecation notes, in file order.
    pub fn deprecations(&self) -> Vec<Diagnostic> {
        let mut v = self.deprecations.borrow().clone();
        v.sort_by_key(|d| (d.line, d.col));
        v
    }

    /// Whether a problem was reported at key path `key` or under it (`key.x`, `key[0]`).
    pub fn reported_at(&self, key: &str) -> bool {
        let keys = self.keys.borrow();
        // the paths that start with `key` sort together, from `key` itself
        keys.range(key.to_string()..)
            .map_while(|k| k.strip_prefix(key))
            .any(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
    }

    pub fn has_errors(&self) -> bool {
        !self.items.borrow().is_empty()
    }

    /// Problems found so far.
    pub fn count(&self) -> usize {
        self.items.borrow().len()
    }

    /// The first [`LISTED`] problems in file order, and how many more there are.
    pub fn into_vec(self) -> (Vec<Diagnostic>, usize) {
        let mut v = self.items.into_inner();
        v.sort_by_key(|d| (d.line, d.col));
        v.dedup();
        let more = v.len().saturating_sub(LISTED);
        v.truncate(LISTED);
        (v, more)
    }
}

/// Problems after which unknown keys get no "did you mean" hint.
const HINTED: usize = 1000;

/// Longest string a scene may give (names, descriptions, choices), in characters.
pub const MAX_STRING: usize = 4096;

/// A view of one TOML table with the dotted path that leads to it and the declaration of its keys.
pub struct TableReader<'a, 's> {
    path: String,
    span: Range<usize>,
    table: Option<&'a DeTable<'s>>,
    decl: &'static Table,
    diags: &'a Diagnostics<'s>,
    asked: RefCell<Vec<&'static str>>,
    /// Made for a value that is not a table (reported as such): what would be said about its
    /// keys only echoes that, so nothing is.
    silent: bool,
}

/// Whether `c` may not stand in a string of type `ty`: no control character in a name (it
/// becomes a file's), none but tabs and line breaks in other text.
pub fn is_refused_control(c: char, ty: Ty) -> bool {
    c.is_control() && (matches!(ty, Ty::FileName) || !matches!(c, '\t' | '\n' | '\r'))
}

/// What a TOML value is, in words for error messages.
pub(super) fn kind_of(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(i) if integer(i.as_str(), i.radix()).is_none() => {
            "an integer past TOML's 64 bits (write a number this large as a float, such as 1e20)"
        }
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// An array of finite numbers, e.g. `[0.5, 1, 0, 0]`; `None` for anything else.
pub fn number_list(v: &DeValue<'_>) -> Option<Vec<f64>> {
    let DeValue::Array(a) = v else { return None };
    a.iter().map(|x| number(x.get_ref()).filter(|n| n.is_finite())).collect()
}

/// The number a TOML integer or float holds.
pub fn number(v: &DeValue<'_>) -> Option<f64> {
    match v {
        DeValue::Integer(i) => integer(i.as_str(), i.radix()).map(|x| x as f64),
        DeValue::Float(f) => {
            let s = f.as_str().replace('_', "");
            s.parse::<f64>().ok()
        }
        _ => None,
    }
}

pub(super) fn integer(text: &str, radix: u32) -> Option<i64> {
    let s = text.replace('_', "");
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d.to_string()),
        None => (false, s.strip_prefix('+').unwrap_or(&s).to_string()),
    };
    let digits = if radix != 10 { digits.get(2..).unwrap_or("").to_string() } else { digits };
    let v = i64::from_str_radix(&digits, radix).ok()?;
    Some(if neg { -v } else { v })
}

/// The closest candidate by edit distance, if it is close enough to be a plausible typo.
pub fn did_you_mean<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|&(d, c)| d <= 2.max(c.len() / 3) && d < word.len().max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

impl<'a, 's> TableReader<'a, 's> {
    pub fn root(table: &'a Spanned<DeTable<'s>>, decl: &'static Table, diags: &'a Diagnostics<'s>) -> Self {
        TableReader {
            path: String::new(),
            span: table.span(),
            table: Some(table.get_ref()),
            decl,
            diags,
            asked: RefCell::new(Vec::new()),
            silent: false,
        }
    }

    /// A reader over nothing: every key takes its default (for absent optional tables).
    pub fn empty(path: &str, decl: &'static Table, diags: &'a Diagnostics<'s>) -> Self {
        TableReader { path: path.to_string(), span: 0..0, table: None, decl, diags, asked: RefCell::new(Vec::new()), silent: false }
    }

    /// A reader of `table` at `path` (a panel's inline scene table, read as a scene of its own).
    pub fn of(table: &'a DeTable<'s>, path: String, span: Range<usize>, decl: &'static Table, diags: &'a Diagnostics<'s>) -> Self {
        TableReader { path, span, table: Some(table), decl, diags, asked: RefCell::new(Vec::new()), silent: false }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn diagnostics(&self) -> &'a Diagnostics<'s> {
        self.diags
    }

    /// The declaration of this table's keys.
    pub fn declaration(&self) -> &'static Table {
        self.decl
    }

    /// Dotted path of a key of this table.
    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }

    fn lookup(&self, key: &Key) -> Option<(&'a Spanned<DeValue<'s>>, Range<usize>)> {
        assert!(
            self.decl.key(key.name).is_some(),
            "`{}` is read from [{}] without being declared there (scene/keys.rs)",
            key.name,
            self.path
        );
        self.asked.borrow_mut().push(key.name);
        let table = self.table?;
        table.iter().find(|(k, _)| k.get_ref().as_ref() == key.name).map(|(k, v)| (v, k.span().start..v.span().end))
    }

    pub fn has(&self, key: &Key) -> bool {
        self.lookup(key).is_some()
    }

    /// Whether a problem has been reported at `key` (or inside it): a rule that needs the key's
    /// value then says nothing, since the key's own problem is the one to fix.
    pub fn failed(&self, key: &Key) -> bool {
        self.diags.reported_at(&self.key_path(key.name))
    }

    /// Reports a problem with the value at `key` (or with the table when the key is absent).
    pub fn error_at(&self, key: &Key, message: impl Into<String>) {
        if self.silent {
            return;
        }
        let span = self.lookup(key).map(|(v, _)| v.span()).unwrap_or(self.span.clone());
        self.diags.error(span, &self.key_path(key.name), message, None);
    }

    /// Notes a value at `key` read under a former name.
    pub fn deprecated_at(&self, key: &Key, message: impl Into<String>, hint: Option<String>) {
        if self.silent {
            return;
        }
        let span = self.lookup(key).map(|(v, _)| v.span()).unwrap_or(self.span.clone());
        self.diags.deprecated(span, &self.key_path(key.name), message, hint);
    }

    /// Reports a problem with the table as a whole.
    pub fn error_here(&self, message: impl Into<String>) {
        if self.silent {
            return;
        }
        self.diags.error(self.span.clone(), &self.path, message, None);
    }

    fn wrong_type(&self, key: &Key, v: &Spanned<DeValue<'s>>, expected: &str) {
        self.diags.error(v.span(), &self.key_path(key.name), format!("expected {expected}, found {}", kind_of(v.get_ref())), None);
    }

    /// A raw value for custom parsing (colours, vectors, animated values).
    pub fn raw(&self, key: &Key) -> Option<&'a Spanned<DeValue<'s>>> {
        self.lookup(key).map(|(v, _)| v)
    }

    /// A number at `key`, within its declared range; its declared default when absent or wrong.
    pub fn float(&self, key: &Key) -> f64 {
        let DefaultValue::Float(default) = key.default else { panic!("`{}` has no number default: use float_or", key.name) };
        self.float_or(key, default)
    }

    /// A number at `key`, within its declared range; `default` when absent or wrong.
    pub fn float_or(&self, key: &Key, default: f64) -> f64 {
        let (lo, hi) = key.float_range();
        let Some((v, _)) = self.lookup(key) else { return default };
        match number(v.get_ref()) {
            Some(x) if x.is_finite() && x >= lo && x <= hi => x,
            Some(x) => {
                self.diags.error(
                    v.span(),
                    &self.key_path(key.name),
                    format!("{x} is out of range: expected a number from {lo} to {hi}"),
                    None,
                );
                default
            }
            None => {
                self.wrong_type(key, v, "a number");
                default
            }
        }
    }

    /// A whole number at `key`, within its declared range; its declared default when absent or
    /// wrong.
    pub fn int(&self, key: &Key) -> i64 {
        let DefaultValue::Int(default) = key.default else { panic!("`{}` has no integer default: use int_or", key.name) };
        self.int_or(key, default)
    }

    /// A whole number at `key`, within its declared range; `default` when absent or wrong.
    pub fn int_or(&self, key: &Key, default: i64) -> i64 {
        let range = key.int_range();
        let Some((v, _)) = self.lookup(key) else { return default };
        let parsed = match v.get_ref() {
            DeValue::Integer(i) => match integer(i.as_str(), i.radix()) {
                Some(x) => Some(x),
                None => {
                    let m = format!("{} is out of range: expected an integer from {} to {}", i.as_str(), range.start(), range.end());
                    self.diags.error(v.span(), &self.key_path(key.name), m, None);
                    return default;
                }
            },
            // a whole number written as a float (`30.0`) is that number, as a JSON Schema
            // `integer` takes it; `30.5` is not
            f @ DeValue::Float(_) => match number(f) {
                Some(x) if x.fract() == 0.0 && x.abs() <= 9.007_199_254_740_992e15 => Some(x as i64),
                _ => {
                    self.wrong_type(key, v, "an integer");
                    return default;
                }
            },
            _ => None,
        };
        let message = |x: i64| match key.ty {
            Ty::IntIn(allowed) if !allowed.contains(&x) => {
                let allowed: Vec<String> = allowed.iter().map(i64::to_string).collect();
                let (last, rest) = allowed.split_last().expect("declared with at least one value");
                let said = if rest.is_empty() { last.clone() } else { format!("{} or {last}", rest.join(", ")) };
                Some(format!("{x} is not allowed here: use {said}"))
            }
            _ if !range.contains(&x) => Some(format!("{x} is out of range: expected an integer from {} to {}", range.start(), range.end())),
            _ => None,
        };
        match parsed {
            Some(x) => match message(x) {
                None => x,
                Some(m) => {
                    self.diags.error(v.span(), &self.key_path(key.name), m, None);
                    default
                }
            },
            None => {
                self.wrong_type(key, v, "an integer");
                default
            }
        }
    }

    /// `true` or `false` at `key`; its declared default when absent or wrong.
    pub fn flag(&self, key: &Key) -> bool {
        let DefaultValue::Bool(default) = key.default else { panic!("`{}` has no boolean default: use flag_or", key.name) };
        self.flag_or(key, default)
    }

    /// `true` or `false` at `key`; `default` when absent or wrong.
    pub fn flag_or(&self, key: &Key, default: bool) -> bool {
        let Some((v, _)) = self.lookup(key) else { return default };
        match v.get_ref() {
            DeValue::Boolean(b) => *b,
            _ => {
                self.wrong_type(key, v, "true or false");
                default
            }
        }
    }

    pub fn string(&self, key: &Key) -> Option<String> {
        let (v, _) = self.lookup(key)?;
        match v.get_ref() {
            DeValue::String(s) if s.chars().count() > MAX_STRING => {
                self.error_at(key, format!("a string of {} characters; strings here are at most {MAX_STRING}", s.chars().count()));
                None
            }
            DeValue::String(s) if matches!(key.ty, Ty::FileName) && (s.is_empty() || s.contains(['/', '\\']) || s.starts_with('.')) => {
                self.error_at(key, "this becomes a folder name: not empty, no '/' or '\\', not starting with '.'");
                None
            }
            DeValue::String(s) if s.chars().any(|c| is_refused_control(c, key.ty)) => {
                let (at, c) = s.chars().enumerate().find(|&(_, c)| is_refused_control(c, key.ty)).expect("found above");
                let allowed = if matches!(key.ty, Ty::FileName) { "" } else { " (tabs and line breaks are)" };
                self.error_at(
                    key,
                    format!("character {} is the control character U+{:04X}: strings here hold none{allowed}", at + 1, c as u32),
                );
                None
            }
            DeValue::String(s) if matches!(key.ty, Ty::FileName) && s.chars().count() > super::MAX_NAME => {
                self.error_at(
                    key,
                    format!("this becomes a folder name: at most {} characters, not {}", super::MAX_NAME, s.chars().count()),
                );
                None
            }
            DeValue::String(s) => Some(s.to_string()),
            _ => {
                self.wrong_type(key, v, "a string");
                None
            }
        }
    }

    /// One of the key's declared choices (the first is the default).
    pub fn choice(&self, key: &Key) -> &'static str {
        let Ty::Choice(choices) = key.ty else { panic!("`{}` is not declared a choice", key.name) };
        let Some((v, _)) = self.lookup(key) else { return choices[0] };
        let DeValue::String(s) = v.get_ref() else {
            self.wrong_type(key, v, &format!("one of {}", quoted(choices)));
            return choices[0];
        };
        if let Some(c) = choices.iter().find(|c| **c == s.as_ref()) {
            return c;
        }
        if let Some(now) = key.now_named(s) {
            if !self.silent {
                let message = format!("\"{s}\" is now called \"{now}\" (the old name is still read, for now)");
                self.diags.deprecated(v.span(), &self.key_path(key.name), message, Some(format!("write `{} = \"{now}\"`", key.name)));
            }
            return now;
        }
        let hint = did_you_mean(s, choices.iter().copied()).map(|c| format!("did you mean \"{c}\"?"));
        self.diags.error(v.span(), &self.key_path(key.name), format!("\"{s}\" is not one of {}", quoted(choices)), hint);
        choices[0]
    }

    /// An array of exactly N numbers at `key`; its declared default when absent or wrong.
    pub fn numbers<const N: usize>(&self, key: &Key) -> [f64; N] {
        self.numbers_or(key, key.default_numbers())
    }

    /// An array of exactly N numbers at `key`; `default` when absent or wrong.
    pub fn numbers_or<const N: usize>(&self, key: &Key, default: [f64; N]) -> [f64; N] {
        let Some((v, _)) = self.lookup(key) else { return default };
        let Some(n) = self.numbers_of::<N>(key, v) else { return default };
        let (lo, hi) = key.float_range();
        if n.iter().any(|x| *x < lo || *x > hi) {
            self.error_at(key, format!("values must be from {lo} to {hi}"));
            return default;
        }
        n
    }

    /// Parses `v` as an array of exactly N finite numbers, reporting problems under `key`.
    pub fn numbers_of<const N: usize>(&self, key: &Key, v: &Spanned<DeValue<'s>>) -> Option<[f64; N]> {
        let expected = format!("an array of {N} numbers");
        let DeValue::Array(a) = v.get_ref() else {
            self.wrong_type(key, v, &expected);
            return None;
        };
        let nums: Vec<Option<f64>> = a.iter().map(|x| number(x.get_ref()).filter(|n| n.is_finite())).collect();
        if nums.len() != N || nums.iter().any(Option::is_none) {
            self.diags.error(v.span(), &self.key_path(key.name), format!("expected {expected}, found {} items", nums.len()), None);
            return None;
        }
        Some(std::array::from_fn(|i| nums[i].unwrap_or(0.0)))
    }

    /// An array of number arrays at `key`, each of one of the key's declared lengths (`[[t, x, y],
    /// …]`); `what` names one item in the message when one is wrong (and then nothing is
    /// returned).
    pub fn rows(&self, key: &Key, what: &str) -> Vec<Vec<f64>> {
        let Ty::Rows(widths) = key.ty else { panic!("`{}` is not declared rows", key.name) };
        let Some(v) = self.raw(key) else { return Vec::new() };
        let DeValue::Array(items) = v.get_ref() else {
            self.error_at(key, format!("expected an array of {what}"));
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items.iter() {
            match number_list(item.get_ref()) {
                Some(n) if widths.contains(&n.len()) && n.iter().all(|x| x.is_finite()) => out.push(n),
                _ => {
                    self.error_at(key, format!("each item is {what}"));
                    return Vec::new();
                }
            }
        }
        out
    }

    /// A sub-table; absent gives an empty reader (all defaults).
    pub fn table(&self, key: &Key) -> TableReader<'a, 's> {
        let Ty::Table(decl) = key.ty else { panic!("`{}` is not declared a table", key.name) };
        let path = self.key_path(key.name);
        match self.lookup(key) {
            None => TableReader::empty(&path, decl, self.diags),
            Some((v, _)) => match v.get_ref() {
                DeValue::Table(t) => TableReader::of(t, path, v.span(), decl, self.diags),
                _ => {
                    self.wrong_type(key, v, "a table");
                    TableReader { silent: true, ..TableReader::empty(&path, decl, self.diags) }
                }
            },
        }
    }

    /// An array of tables (`[[key]]`), each with its index in the path.
    pub fn tables(&self, key: &Key) -> Vec<TableReader<'a, 's>> {
        let Ty::Tables(decl) = key.ty else { panic!("`{}` is not declared an array of tables", key.name) };
        let Some((v, _)) = self.lookup(key) else { return Vec::new() };
        let DeValue::Array(a) = v.get_ref() else {
            self.wrong_type(key, v, "an array of tables");
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in a.iter().enumerate() {
            let path = format!("{}[{i}]", self.key_path(key.name));
            match item.get_ref() {
                DeValue::Table(t) => out.push(TableReader::of(t, path, item.span(), decl, self.diags)),
                other => self.diags.error(item.span(), &path, format!("expected a table, found {}", kind_of(other)), None),
            }
        }
        out
    }

    /// Takes `names` as read without reading them: where their problems would only echo another
    /// (each kind's table when `kind` itself is wrong), [`TableReader::finish`] passes them over.
    pub fn excuse(&self, names: &[&'static str]) {
        self.asked.borrow_mut().extend_from_slice(names);
    }

    /// Reports every key nobody asked for. Call once, after reading everything.
    pub fn finish(&self) {
        let Some(table) = self.table else { return };
        let asked = self.asked.borrow().clone();
        let place = if self.path.is_empty() { "at the top level".to_string() } else { format!("in [{}]", self.path) };
        let mut known: Vec<&str> = asked.clone();
        known.sort();
        known.dedup();
        let known = (!known.is_empty()).then(|| format!("known keys here: {}", known.join(", ")));
        let declared = self.decl.names();
        for (k, _) in table.iter() {
            let name = k.get_ref().as_ref();
            if asked.contains(&name) {
                continue;
            }
            // a file with thousands of problems lists only its first ones: the rest need no
            // "did you mean", which would cost more than everything else put together; a key this
            // table declares but did not take here (another kind's table, another case's key) is
            // not a misspelling
            let close =
                if self.diags.count() < HINTED && !declared.contains(&name) { did_you_mean(name, declared.iter().copied()) } else { None };
            let hint = close.map(|c| format!("did you mean `{c}`?")).or_else(|| known.clone());
            self.diags.error(k.span(), &self.key_path(name), format!("unknown key `{name}` {place}"), hint);
        }
    }
}

fn quoted(choices: &[&str]) -> String {
    choices.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
}
