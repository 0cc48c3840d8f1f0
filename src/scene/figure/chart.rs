//! A chart panel's table: its type, series (inline numbers or names in the figure's data), categories,
//! bins, reference line and axis labels.

use toml::de::DeValue;

use super::super::keys::Key;
use super::super::reader::TableReader;
use super::keys::*;
use super::{ChartKind, ChartSpec, DataSource, MAX_VALUES, Reference, Series, lookup, lookup_all};

/// Numbers at `key`: an inline array, or a dotted path into `data` naming one.
fn read_values(t: &TableReader, key: &Key, data: DataSource) -> Option<Vec<f64>> {
    let v = t.raw(key)?;
    let values = match v.get_ref() {
        DeValue::String(path) => {
            let d = match data {
                DataSource::Read(d) => d,
                DataSource::NotNamed => {
                    t.error_at(key, format!("\"{path}\" names a value of the data, but there is none: add `data = \"file.json\"`"));
                    return None;
                }
                DataSource::Unreadable => return None,
            };
            let memo = d.columns.get(path);
            let found = if let Some(found) = memo {
                found
            } else if path.split('.').any(|p| p == "*") {
                let found = lookup_all(&d.json, path).and_then(|items| {
                    items
                        .iter()
                        .enumerate()
                        .map(|(k, v)| {
                            v.as_f64().ok_or_else(|| format!("\"{path}\" in {}: item {k} is {v}, not a number", d.path.display()))
                        })
                        .collect::<Result<Vec<f64>, String>>()
                });
                d.columns.put(path, &found);
                found
            } else {
                lookup(&d.json, path).and_then(|j| {
                    j.as_array()
                        .and_then(|a| a.iter().map(serde_json::Value::as_f64).collect::<Option<Vec<f64>>>())
                        .ok_or_else(|| format!("\"{path}\" in {} is not an array of numbers", d.path.display()))
                })
            };
            match found {
                Ok(v) => v,
                Err(e) => {
                    t.error_at(key, e);
                    return None;
                }
            }
        }
        other => match super::super::reader::number_list(other) {
            Some(v) => v,
            None => {
                t.error_at(key, "expected an array of numbers, or the dotted name of one in the data");
                return None;
            }
        },
    };
    if values.len() > MAX_VALUES || values.iter().any(|x| !x.is_finite()) {
        t.error_at(key, format!("{} values; a series has at most {MAX_VALUES} finite numbers", values.len()));
        return None;
    }
    Some(values)
}

/// One series: its values, its x (line charts), label and colour; and whether its values could
/// be read (when not, their problem is reported and nothing is checked against their length).
fn read_series(s: &TableReader, data: DataSource, kind: ChartKind) -> (Series, bool) {
    let values = read_values(s, &VALUES, data);
    if values.is_none() && !s.has(&VALUES) {
        s.error_here("a series needs `values`");
    }
    let read = values.is_some();
    let values = values.unwrap_or_default();
    let x = s.has(&X).then(|| read_values(s, &X, data)).flatten();
    if let Some(x) = &x {
        if kind != ChartKind::Line {
            s.error_at(&X, "`x` is for line charts; bars take `categories`, histograms count `values`");
        } else if read && x.len() != values.len() {
            // (values that could not be read have been reported: their length says nothing)
            s.error_at(&X, format!("{} x values for {} values", x.len(), values.len()));
        }
    }
    let series = Series {
        label: s.string(&SERIES_LABEL).unwrap_or_default(),
        x,
        values,
        color: s.has(&SERIES_COLOR).then(|| s.color(&SERIES_COLOR)),
    };
    (series, read)
}

/// A chart panel's `[…chart]` table.
pub(super) fn read_chart(c: &TableReader, data: DataSource) -> ChartSpec {
    let kind = match c.choice(&CHART_TYPE) {
        "histogram" => ChartKind::Histogram,
        "line" => ChartKind::Line,
        _ => ChartKind::Bar,
    };
    let (mut series, mut read): (Vec<Series>, Vec<bool>) = c
        .tables(&SERIES_KEY)
        .iter()
        .map(|s| {
            let out = read_series(s, data, kind);
            s.finish();
            out
        })
        .unzip();
    if c.has(&VALUES) {
        if !series.is_empty() {
            c.error_at(&VALUES, "give `values` or `[[…series]]`, not both");
        }
        let (first, ok) = read_series(c, data, kind);
        series.insert(0, first);
        read.push(ok);
    } else if series.is_empty() && !c.failed(&SERIES_KEY) {
        c.error_here("a chart needs `values` or `[[…series]]`");
    }
    let categories: Vec<String> = match c.raw(&CATEGORIES).map(|v| v.get_ref()) {
        None => Vec::new(),
        Some(DeValue::Array(a)) => a
            .iter()
            .map(|v| match v.get_ref() {
                DeValue::String(s) => s.to_string(),
                other => super::super::reader::number(other).map(|n| n.to_string()).unwrap_or_default(),
            })
            .collect(),
        Some(_) => {
            c.error_at(&CATEGORIES, "expected an array of names");
            Vec::new()
        }
    };
    let longest = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
    if !categories.is_empty() && categories.len() != longest && read.iter().all(|&ok| ok) {
        c.error_at(&CATEGORIES, format!("{} categories for {longest} values", categories.len()));
    }
    let first_read = read.first() != Some(&false);
    let reference = c.has(&REFERENCE).then(|| read_reference(c, data, &series, first_read)).flatten();
    if c.has(&REFERENCE_LABEL) && !c.has(&REFERENCE) {
        c.error_at(&REFERENCE_LABEL, "`reference_label` names the `reference` line; give `reference` too");
    }
    ChartSpec {
        kind,
        series,
        categories,
        bins: c.int(&BINS) as usize,
        reference,
        x_label: c.string(&X_LABEL).unwrap_or_default(),
        y_label: c.string(&Y_LABEL).unwrap_or_default(),
    }
}

/// `reference`: a number, `"mean"` (of the first series, when that could be read), or a dotted
/// name in the data.
fn read_reference(c: &TableReader, data: DataSource, series: &[Series], first_read: bool) -> Option<Reference> {
    let v = c.raw(&REFERENCE)?;
    let value = match v.get_ref() {
        DeValue::String(s) if s.as_ref() == "mean" && !first_read => return None,
        DeValue::String(s) if s.as_ref() == "mean" => {
            let first = series.first().map(|s| s.values.as_slice()).unwrap_or_default();
            (!first.is_empty()).then(|| first.iter().sum::<f64>() / first.len() as f64)
        }
        DeValue::String(s) => match data {
            DataSource::Read(d) => match lookup(&d.json, s) {
                Ok(j) => j.as_f64(),
                Err(e) => {
                    c.error_at(&REFERENCE, e);
                    return None;
                }
            },
            DataSource::NotNamed => None,
            DataSource::Unreadable => return None,
        },
        other => super::super::reader::number(other),
    };
    let Some(value) = value.filter(|v| v.is_finite()) else {
        c.error_at(&REFERENCE, "expected a number, \"mean\", or the dotted name of a number in the data");
        return None;
    };
    Some(Reference { value, label: c.string(&REFERENCE_LABEL).unwrap_or_default() })
}
