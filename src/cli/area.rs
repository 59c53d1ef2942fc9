//! `info` on MREA areas (the report is [`crate::schema::area`]).

use crate::formats::mrea::parse_mrea;
use crate::gx::lights::LightOptions;
use crate::schema::area::{AreaReport, text};
use crate::schema::json_or_text;

/// `tevscope info AREA.MREA [--json]`, with the game's light conversion (the default
/// [`LightOptions`]).
pub fn info_mrea(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    let m = parse_mrea(bytes, label)?;
    let options = LightOptions::default();
    let report = AreaReport::new(&m, bytes, label, &options);
    Ok(json_or_text(&report, json, |_| text(&m, label, &options))?)
}
