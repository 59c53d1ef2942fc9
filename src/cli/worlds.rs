//! `info` on MLVL and STRG, and `tevscope worlds` (the listing is [`crate::load::worlds`]).

use std::path::Path;

use crate::formats::{mlvl::Mlvl, strg::Strg};
use crate::load::Resource;
use crate::schema::{json_or_text, mlvl::MlvlReport, strg::StrgReport, worlds::WorldsReport};

pub fn info_mlvl(res: &Resource, json: bool) -> anyhow::Result<String> {
    let report = MlvlReport::new(&Mlvl::parse(&res.bytes, &res.label)?, &res.bytes, res.id);
    Ok(json_or_text(&report, json, MlvlReport::text)?)
}

pub fn info_strg(res: &Resource, json: bool) -> anyhow::Result<String> {
    let id = res
        .id
        .map(|id| crate::formats::asset_id_string(id, res.wide_ids()));
    let report = StrgReport::new(&Strg::parse(&res.bytes, &res.label)?, &res.bytes, id);
    Ok(json_or_text(&report, json, StrgReport::text)?)
}

/// `tevscope worlds SOURCE [--lang CODE] [--json]`.
pub fn worlds(source: &Path, language: Option<&str>, json: bool) -> anyhow::Result<String> {
    let report = crate::load::worlds::list_worlds(source, language)?;
    Ok(json_or_text(&report, json, WorldsReport::text)?)
}
