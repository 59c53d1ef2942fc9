//! `info` on MREA areas (the report is [`crate::schema::area`]).

use crate::formats::mrea::parse_mrea;
use crate::gx::lights::LightOptions;
use crate::schema::area::{AreaReport, text};

/// `tevscope info AREA.MREA [--json]` (see the module docs).
pub fn info_mrea(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    info_mrea_with(bytes, label, json, &LightOptions::default())
}

/// [`info_mrea`] with the light Alt switches.
pub fn info_mrea_with(
    bytes: &[u8],
    label: &str,
    json: bool,
    options: &LightOptions,
) -> anyhow::Result<String> {
    let m = parse_mrea(bytes, label)?;
    Ok(if json {
        serde_json::to_string_pretty(&AreaReport::new(&m, bytes, label, options))?
    } else {
        text(&m, label, options)
    })
}
