//! Every key of a scene file is declared once, as data: its name, type, default, range or
//! choices, unit and a one-line description. Each table's module declares its keys as constants;
//! the reader takes defaults and ranges from them and refuses to ask for a key its table does not
//! declare, and the JSON Schema (`simreel schema`) and the scene reference in the docs are
//! generated from them, so the three cannot drift. What a change to a key redoes is not declared:
//! it is where the reader puts its value ([`super::effects`] finds it).

use super::color::Srgb;

/// A key's value type.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A whole number in `min..=max`.
    Int {
        min: i64,
        max: i64,
    },
    /// A number (an integer or a float) in `min..=max`.
    Float {
        min: f64,
        max: f64,
    },
    /// One of these whole numbers.
    IntIn(&'static [i64]),
    Bool,
    /// A string (at most [`super::reader::MAX_STRING`] characters).
    Str,
    /// A string that names a folder and files: not empty, at most [`super::MAX_NAME`] characters,
    /// no `/` or `\`, not starting with `.`.
    FileName,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// `"#rrggbb"`, `"#rgb"` or `[r, g, b]` with components in 0..1.
    Color,
    /// Exactly `len` numbers, each in `min..=max`.
    Vector {
        len: usize,
        min: f64,
        max: f64,
    },
    /// Exactly `len` whole numbers, each in `min..=max` (a grid's size, a count for each level).
    /// `16.0` is taken as 16, as a JSON Schema `integer` takes it.
    Whole {
        len: usize,
        min: i64,
        max: i64,
    },
    /// `len` numbers (a number when `len` is 1) that may change over the scene: constant, a ramp
    /// table `{ from, to, start, end, ease }`, or keyframes `[[t, …], …]`; values in `min..=max`.
    Animated {
        len: usize,
        min: f64,
        max: f64,
    },
    /// An array of number arrays, each of one of these lengths (`[[t, x, y], …]`).
    Rows(&'static [usize]),
    /// An array of items of one type.
    List(&'static Ty),
    /// An array of at least one item of one type.
    NonEmpty(&'static Ty),
    /// A table.
    Table(&'static Table),
    /// An array of tables (`[[key]]`).
    Tables(&'static Table),
    /// Any of these types.
    Either(&'static [Ty]),
    /// A table of another scene's keys (a figure panel's `with`): checked by that scene's reader.
    Free,
}

/// A key's default.
#[derive(Clone, Copy, Debug)]
pub enum DefaultValue {
    /// Absent means absent: the key is optional with nothing in its place, or required.
    Nothing,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
    Color(Srgb),
    Numbers(&'static [f64]),
}

/// One key of a table.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    pub ty: Ty,
    pub default: DefaultValue,
    /// The default in words where the value above is not the whole story (computed from other
    /// keys, or the key only matters when given); empty otherwise.
    pub said: &'static str,
    /// One line: what the key is.
    pub doc: &'static str,
    /// Its unit ("m", "s", "°", "px", …), empty where it has none.
    pub unit: &'static str,
    pub required: bool,
    /// Former names of a choice's values, each with the name it has now: still read, with a
    /// deprecation note (`Scene::deprecations`).
    pub renamed: &'static [(&'static str, &'static str)],
}

/// The keys of one table; a tagged table has more keys by the value of its tag (a terrain
/// shape's `type`).
#[derive(Debug)]
pub struct Table {
    /// One line: what the table is.
    pub doc: &'static str,
    pub keys: &'static [Key],
    pub tagged: Option<Tagged>,
}

/// The cases of a tagged table: the keys each value of `tag` adds.
#[derive(Debug)]
pub struct Tagged {
    pub tag: &'static str,
    pub cases: &'static [(&'static str, &'static [Key])],
}

impl Key {
    const fn new(name: &'static str, ty: Ty, default: DefaultValue) -> Key {
        Key { name, ty, default, said: "", doc: "", unit: "", required: false, renamed: &[] }
    }

    pub const fn int(name: &'static str, default: i64, min: i64, max: i64) -> Key {
        Key::new(name, Ty::Int { min, max }, DefaultValue::Int(default))
    }

    pub const fn float(name: &'static str, default: f64, min: f64, max: f64) -> Key {
        Key::new(name, Ty::Float { min, max }, DefaultValue::Float(default))
    }

    pub const fn flag(name: &'static str, default: bool) -> Key {
        Key::new(name, Ty::Bool, DefaultValue::Bool(default))
    }

    pub const fn text(name: &'static str) -> Key {
        Key::new(name, Ty::Str, DefaultValue::Nothing)
    }

    /// One of `allowed` (whole numbers, in increasing order).
    pub const fn int_in(name: &'static str, default: i64, allowed: &'static [i64]) -> Key {
        Key::new(name, Ty::IntIn(allowed), DefaultValue::Int(default))
    }

    /// One of `choices`; the first is the default.
    pub const fn choice(name: &'static str, choices: &'static [&'static str]) -> Key {
        Key::new(name, Ty::Choice(choices), DefaultValue::Str(choices[0]))
    }

    pub const fn color(name: &'static str, default: Srgb) -> Key {
        Key::new(name, Ty::Color, DefaultValue::Color(default))
    }

    /// Exactly `default.len()` numbers.
    pub const fn vector(name: &'static str, default: &'static [f64], min: f64, max: f64) -> Key {
        Key::new(name, Ty::Vector { len: default.len(), min, max }, DefaultValue::Numbers(default))
    }

    /// `default.len()` whole numbers in `min..=max`.
    pub const fn whole(name: &'static str, default: &'static [f64], min: i64, max: i64) -> Key {
        Key::new(name, Ty::Whole { len: default.len(), min, max }, DefaultValue::Numbers(default))
    }

    /// `default.len()` numbers that may change over the scene.
    pub const fn animated(name: &'static str, default: &'static [f64], min: f64, max: f64) -> Key {
        Key::new(name, Ty::Animated { len: default.len(), min, max }, DefaultValue::Numbers(default))
    }

    pub const fn table(name: &'static str, table: &'static Table) -> Key {
        Key::new(name, Ty::Table(table), DefaultValue::Nothing)
    }

    pub const fn tables(name: &'static str, table: &'static Table) -> Key {
        Key::new(name, Ty::Tables(table), DefaultValue::Nothing)
    }

    /// A key of any type, with no default.
    pub const fn of(name: &'static str, ty: Ty) -> Key {
        Key::new(name, ty, DefaultValue::Nothing)
    }

    pub const fn doc(self, doc: &'static str) -> Key {
        Key { doc, ..self }
    }

    pub const fn unit(self, unit: &'static str) -> Key {
        Key { unit, ..self }
    }

    pub const fn required(self) -> Key {
        Key { required: true, ..self }
    }

    /// A default of numbers for a key built with [`Key::of`].
    pub const fn numbers(self, default: &'static [f64]) -> Key {
        Key { default: DefaultValue::Numbers(default), ..self }
    }

    /// The default in words: computed from other keys, or what absence means.
    /// Values of this choice that had other names: `(former, now)`.
    pub const fn renamed(self, renamed: &'static [(&'static str, &'static str)]) -> Key {
        Key { renamed, ..self }
    }

    /// The choice's value a former name stands for.
    pub fn now_named(&self, former: &str) -> Option<&'static str> {
        self.renamed.iter().find(|(old, _)| *old == former).map(|&(_, now)| now)
    }

    pub const fn said(self, said: &'static str) -> Key {
        Key { said, ..self }
    }

    /// The declared default of a number.
    pub fn default_float(&self) -> f64 {
        match self.default {
            DefaultValue::Float(d) => d,
            _ => panic!("`{}` has no number default", self.name),
        }
    }

    /// The declared default of a key of N numbers.
    pub fn default_numbers<const N: usize>(&self) -> [f64; N] {
        match self.default {
            DefaultValue::Numbers(d) if d.len() == N => std::array::from_fn(|i| d[i]),
            _ => panic!("`{}` has no default of {N} numbers", self.name),
        }
    }

    /// An integer range's ends.
    pub fn int_range(&self) -> std::ops::RangeInclusive<i64> {
        match self.ty {
            Ty::Int { min, max } => min..=max,
            Ty::IntIn(allowed) => allowed[0]..=allowed[allowed.len() - 1],
            _ => panic!("`{}` is not declared an integer", self.name),
        }
    }

    /// A number range's ends (of a number, a vector or an animated value).
    pub fn float_range(&self) -> (f64, f64) {
        match self.ty {
            Ty::Float { min, max } | Ty::Vector { min, max, .. } | Ty::Animated { min, max, .. } => (min, max),
            Ty::Int { min, max } | Ty::Whole { min, max, .. } => (min as f64, max as f64),
            // a number or a pair: the ranges are the same
            Ty::Either([Ty::Float { min, max }, ..]) => (*min, *max),
            _ => panic!("`{}` is not declared a number", self.name),
        }
    }
}

impl Table {
    pub const fn new(doc: &'static str, keys: &'static [Key]) -> Table {
        Table { doc, keys, tagged: None }
    }

    pub const fn tagged(
        doc: &'static str,
        keys: &'static [Key],
        tag: &'static str,
        cases: &'static [(&'static str, &'static [Key])],
    ) -> Table {
        Table { doc, keys, tagged: Some(Tagged { tag, cases }) }
    }

    /// The declaration of `name` in this table or any of its cases.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        let keys: &'static [Key] = self.keys;
        keys.iter().find(|k| k.name == name).or_else(|| {
            let cases = self.tagged.as_ref().map_or(&[][..], |t| t.cases);
            cases.iter().flat_map(|(_, keys)| keys.iter()).find(|k| k.name == name)
        })
    }

    /// Every key name this table declares, its cases' included (for "known keys" hints).
    pub fn names(&self) -> Vec<&'static str> {
        let cases = self.tagged.as_ref().map_or(&[][..], |t| t.cases);
        let mut names: Vec<&'static str> =
            self.keys.iter().map(|k| k.name).chain(cases.iter().flat_map(|(_, keys)| keys.iter().map(|k| k.name))).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}
