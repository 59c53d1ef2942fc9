//! tevscope's light set file: the game's area light records (`formats.md` §9.4) as JSON,
//! written by the viewer's Lights panel and read by it and by `tevscope render --lights
//! FILE.json`. Records, not GX values, are stored so a reloaded set is edited the way it
//! was built (kind, brightness, falloff, cutoff) and lit exactly as the game converts it
//! ([`super::lights::LightSet::from_layer`]).
//!
//! ```json
//! { "format": "tevscope-lights", "version": 1, "lights": [
//!   { "kind": "spot", "color": [1, 0.5, 0.2, 1], "brightness": 1, "falloff": "linear",
//!     "cutoff_degrees": 60, "position": [0, 0, 3], "direction": [0, 0, -1] } ] }
//! ```
//!
//! Every field is required and unknown ones are refused, so a typo is an error rather
//! than a silently ignored value; numbers must be finite.

use serde::{Deserialize, Serialize};

use super::lights::{Falloff, PrimeLight, PrimeLightType};

/// The `format` value of a light set file.
pub const FORMAT: &str = "tevscope-lights";
/// The file version this tevscope writes and reads.
pub const VERSION: u32 = 1;

/// Why a light set file was refused. The caller adds the file's name.
#[derive(Debug, thiserror::Error)]
pub enum LightFileError {
    /// Not JSON, or the top level lacks a field (serde names it).
    #[error("not a light set file")]
    Json(#[source] serde_json::Error),
    #[error("`format` is {0:?}, not {FORMAT:?}")]
    Format(String),
    #[error("`version` {0} is not one this tevscope reads ({VERSION})")]
    Version(u32),
    /// A light entry is malformed (serde names the field: missing, unknown, bad kind).
    #[error("lights[{index}]")]
    Entry {
        index: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("lights[{index}].{field} is not a finite number")]
    NotFinite { index: usize, field: &'static str },
}

/// One light as the file stores it (also how `tevscope view --script` gives lights).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    kind: PrimeLightType,
    /// RGBA, 0…1 (the engine clamps; ambient multiplies by brightness first).
    color: [f32; 4],
    brightness: f32,
    falloff: Falloff,
    /// Full cone angle in degrees, as records store it (the engine halves it).
    cutoff_degrees: f32,
    position: [f32; 3],
    direction: [f32; 3],
}

impl From<&PrimeLight> for Entry {
    fn from(r: &PrimeLight) -> Self {
        Self {
            kind: r.kind(),
            color: r.color,
            brightness: r.brightness,
            falloff: r.falloff(),
            cutoff_degrees: r.spot_cutoff,
            position: r.position,
            direction: r.direction,
        }
    }
}

impl Entry {
    /// The area light record; `index` names the entry in errors.
    pub fn record(&self, index: usize) -> Result<PrimeLight, LightFileError> {
        let fields: [(&'static str, &[f32]); 5] = [
            ("color", &self.color),
            ("brightness", std::slice::from_ref(&self.brightness)),
            ("cutoff_degrees", std::slice::from_ref(&self.cutoff_degrees)),
            ("position", &self.position),
            ("direction", &self.direction),
        ];
        if let Some((field, _)) = fields
            .iter()
            .find(|(_, v)| v.iter().any(|x| !x.is_finite()))
        {
            return Err(LightFileError::NotFinite { index, field });
        }
        Ok(PrimeLight {
            light_type: self.kind.word(),
            color: self.color,
            position: self.position,
            direction: self.direction,
            brightness: self.brightness,
            spot_cutoff: self.cutoff_degrees,
            falloff: self.falloff.word(),
        })
    }
}

/// The top level as written, before the lights.
#[derive(Serialize)]
struct FileHead {
    format: &'static str,
    version: u32,
}

/// The top level as read: entries stay JSON until each is checked, so an error can say
/// which entry it is in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn {
    format: String,
    version: u32,
    lights: Vec<serde_json::Value>,
}

/// The file text for `records`: one light per line, so a set reads (and diffs) light by
/// light.
pub fn to_json(records: &[PrimeLight]) -> String {
    let head = FileHead {
        format: FORMAT,
        version: VERSION,
    };
    // Plain structs of numbers and names: serialization cannot fail.
    let mut out = serde_json::to_string(&head).unwrap_or_default();
    out.pop(); // the closing brace
    out += ",\"lights\":[";
    for (i, r) in records.iter().enumerate() {
        out += if i == 0 { "\n  " } else { ",\n  " };
        out += &serde_json::to_string(&Entry::from(r)).unwrap_or_default();
    }
    out += "\n]}\n";
    out
}

/// Reads a light set file's text into area light records.
pub fn from_json(text: &str) -> Result<Vec<PrimeLight>, LightFileError> {
    let file: FileIn = serde_json::from_str(text).map_err(LightFileError::Json)?;
    if file.format != FORMAT {
        return Err(LightFileError::Format(file.format));
    }
    if file.version != VERSION {
        return Err(LightFileError::Version(file.version));
    }
    file.lights
        .into_iter()
        .enumerate()
        .map(|(index, value)| {
            let entry: Entry = serde_json::from_value(value)
                .map_err(|source| LightFileError::Entry { index, source })?;
            entry.record(index)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::lights::{LightOptions, LightPreset, LightSet};

    /// The error and its causes, as anyhow's `{:#}` shows them.
    fn message(e: &LightFileError) -> String {
        let mut out = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            out += &format!(": {s}");
            source = s.source();
        }
        out
    }

    fn one_of_each() -> Vec<PrimeLight> {
        let mut out: Vec<PrimeLight> = PrimeLightType::ALL
            .iter()
            .enumerate()
            .map(|(i, &kind)| PrimeLight::new(kind, [i as f32, -0.25, 1.5]))
            .collect();
        out[2].color = [0.1, 0.2, 0.3, 1.0];
        out[2].spot_cutoff = 37.5;
        out[1].falloff = Falloff::Linear.word();
        out[3].falloff = Falloff::Quadratic.word();
        out[3].brightness = 0.125;
        out
    }

    #[test]
    fn round_trip_keeps_every_record_exactly() {
        let records = one_of_each();
        let text = to_json(&records);
        assert_eq!(from_json(&text).unwrap(), records);
        // Odd floats survive too (serde_json's float_roundtrip).
        let mut odd = records.clone();
        odd[0].color[0] = 0.1 + 1e-7;
        odd[1].direction = [0.267_261_24, 0.534_522_5, -0.801_783_7];
        assert_eq!(from_json(&to_json(&odd)).unwrap(), odd);
        // And so does a preset, to the same light set.
        let basic = LightPreset::Basic.records();
        let back = from_json(&to_json(&basic)).unwrap();
        assert_eq!(
            LightSet::from_layer(&back, &LightOptions::default()),
            LightPreset::Basic.light_set()
        );
    }

    #[test]
    fn kinds_and_falloffs_use_the_conformance_names() {
        let text = to_json(&one_of_each());
        for name in [
            "\"local_ambient\"",
            "\"directional\"",
            "\"spot\"",
            "\"custom\"",
            "\"quadratic\"",
            "\"linear\"",
            "\"constant\"",
        ] {
            assert!(text.contains(name), "{name} in {text}");
        }
    }

    fn edited(f: impl Fn(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(&to_json(&one_of_each())).unwrap();
        f(&mut v);
        v.to_string()
    }

    #[test]
    fn refusals_name_the_field() {
        let cases: Vec<(String, &str)> = vec![
            (
                edited(|v| v["lights"][1]["kind"] = "strobe".into()),
                "lights[1]: unknown variant `strobe`",
            ),
            (
                edited(|v| {
                    v["lights"][2].as_object_mut().unwrap().remove("brightness");
                }),
                "lights[2]: missing field `brightness`",
            ),
            (
                edited(|v| v["lights"][0]["falloff"] = "cubic".into()),
                "lights[0]: unknown variant `cubic`",
            ),
            (
                edited(|v| v["lights"][3]["colour"] = 1.into()),
                "lights[3]: unknown field `colour`",
            ),
            (
                edited(|v| v["lights"][3]["position"] = serde_json::json!([1.0, 2.0])),
                "lights[3]: invalid length 2",
            ),
            (
                edited(|v| v["format"] = "gltf".into()),
                "`format` is \"gltf\"",
            ),
            (edited(|v| v["version"] = 2.into()), "`version` 2"),
            (
                edited(|v| {
                    v.as_object_mut().unwrap().remove("lights");
                }),
                "missing field `lights`",
            ),
            ("[1, 2".to_string(), "not a light set file"),
        ];
        for (text, expect) in cases {
            let e = from_json(&text).expect_err(expect);
            assert!(
                message(&e).contains(expect),
                "{expect:?} in {}",
                message(&e)
            );
        }
    }

    #[test]
    fn non_finite_numbers_are_refused_by_field() {
        // JSON has no NaN literal: `NaN` is a syntax error, and an overflowing number
        // becomes infinite as f32, which the check names.
        let nan = to_json(&one_of_each()).replacen("\"brightness\":1.0", "\"brightness\":NaN", 1);
        assert!(nan.contains("NaN"));
        assert!(from_json(&nan).is_err());
        for (field, value) in [
            ("brightness", serde_json::json!(1e300)),
            ("cutoff_degrees", serde_json::json!(-1e300)),
            ("direction", serde_json::json!([0.0, 1e39, 0.0])),
            ("color", serde_json::json!([1.0, 1.0, 1.0, 1e200])),
        ] {
            let text = edited(|v| v["lights"][2][field] = value.clone());
            let e = from_json(&text).expect_err(field);
            assert_eq!(
                message(&e),
                format!("lights[2].{field} is not a finite number")
            );
        }
        // A NaN record (e.g. from a hostile MREA) is written as null, which reads back as
        // an error rather than a light.
        let mut records = one_of_each();
        records[1].position[0] = f32::NAN;
        let e = from_json(&to_json(&records)).expect_err("null position");
        assert!(
            message(&e).starts_with("lights[1]: invalid type: null"),
            "{}",
            message(&e)
        );
    }
}
