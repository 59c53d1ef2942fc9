//! MREA layout and lights against the conformance fixture `mp1_lights_minimal.MREA`, and the
//! GX values computed from its lights against the formulas of `gx.md` §10.4.

use serde_json::Value;
use tevscope::formats::Reader;
use tevscope::formats::Writer;
use tevscope::formats::mrea::{self, parse_mrea, write_lights_section};
use tevscope::gx::lights::{GxLight, GxLightValue, LightOptions, LightSet};

const NAME: &str = "mp1_lights_minimal.MREA";

fn fixture() -> Option<(Vec<u8>, Value)> {
    tevscope::testing::conformance_file(NAME)
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("integer"))
        .collect()
}

#[test]
fn header_and_sections_match_the_fixture() {
    let Some((bytes, j)) = fixture() else { return };
    let m = parse_mrea(&bytes, NAME).expect("parses");
    assert_eq!(u64::from(m.magic), j["magic"].as_u64().expect("magic"));
    assert_eq!(
        u64::from(m.version),
        j["version"].as_u64().expect("version")
    );
    assert_eq!(m.area_transform.to_vec(), f32s(&j["area_transform"]));
    assert_eq!(
        u64::from(m.world_model_count),
        j["world_model_count"].as_u64().expect("count")
    );
    assert_eq!(
        u64::from(m.data_section_count),
        j["data_section_count"].as_u64().expect("count")
    );
    let idx = j["section_index"].as_object().expect("section_index");
    assert_eq!(idx.len(), m.section_index.len());
    for (name, v) in idx {
        assert_eq!(
            m.section_index(name).map(u64::from),
            v.as_u64(),
            "section index {name}"
        );
    }
    assert_eq!(
        m.data_section_sizes
            .iter()
            .map(|&x| u64::from(x))
            .collect::<Vec<_>>(),
        u64s(&j["data_section_sizes"])
    );
    assert_eq!(m.data_section_offsets, u64s(&j["data_section_offsets"]));
    assert_eq!(Some(m.header_size), j["header_size"].as_u64());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn light_records_match_the_fixture() {
    let Some((bytes, j)) = fixture() else { return };
    let m = parse_mrea(&bytes, NAME).expect("parses");
    let jl = &j["lights_section"];
    let l = m.lights_section.as_ref().expect("lights section");
    assert_eq!(l.offset, jl["offset"].as_u64());
    assert_eq!(Some(u64::from(l.magic)), jl["magic"].as_u64());
    assert_eq!(Some(l.layers.len() as u64), jl["layer_count"].as_u64());
    assert_eq!(
        Some(l.light_record_size as u64),
        jl["light_record_size"].as_u64()
    );
    let layers = jl["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), l.layers.len());
    for (got_layer, want_layer) in l.layers.iter().zip(layers) {
        let want_layer = want_layer.as_array().expect("layer");
        assert_eq!(got_layer.len(), want_layer.len());
        for (r, w) in got_layer.iter().zip(want_layer) {
            assert_eq!(Some(u64::from(r.light_type)), w["type"].as_u64());
            assert_eq!(Some(r.kind().name()), w["type_name"].as_str());
            assert_eq!(r.color[..3].to_vec(), f32s(&w["color_rgb"]));
            assert_eq!(r.position.to_vec(), f32s(&w["position"]));
            assert_eq!(r.direction.to_vec(), f32s(&w["direction"]));
            assert_eq!(Some(f64::from(r.brightness)), w["brightness"].as_f64());
            assert_eq!(Some(f64::from(r.spot_cutoff)), w["spot_cutoff"].as_f64());
            assert_eq!(
                Some(f64::from(r.unknown_float_1)),
                w["unknown_float_1"].as_f64()
            );
            assert_eq!(
                Some(u64::from(r.cast_shadows_u8)),
                w["cast_shadows_u8"].as_u64()
            );
            assert_eq!(
                Some(f64::from(r.unknown_float_2)),
                w["unknown_float_2"].as_f64()
            );
            assert_eq!(Some(u64::from(r.falloff_type)), w["falloff_type"].as_u64());
            assert_eq!(
                Some(tevscope::gx::lights::Falloff::name_of_word(r.falloff_type)),
                w["falloff_name"].as_str()
            );
            assert_eq!(
                Some(f64::from(r.unknown_float_3)),
                w["unknown_float_3"].as_f64()
            );
        }
    }
}

#[test]
fn lights_section_rewrites_byte_for_byte() {
    let Some((bytes, _)) = fixture() else { return };
    let m = parse_mrea(&bytes, NAME).expect("parses");
    let l = m.lights_section.as_ref().expect("lights");
    let start = l.offset.expect("uncompressed") as usize;
    let mut w = Writer::new();
    write_lights_section(l, &mut w);
    assert_eq!(&bytes[start..start + w.len()], &w.buf[..]);
    // The rest of the section is zero padding.
    let idx = m.section_index("lights_section").expect("index") as usize;
    let end = start + m.data_section_sizes[idx] as usize;
    assert!(bytes[start + w.len()..end].iter().all(|&b| b == 0));
    // And parses back to the same records.
    let mut warnings = Vec::new();
    let again = mrea::parse_lights_section(
        &mut Reader::new(&w.buf, "rewritten"),
        tevscope::formats::Game::Mp1,
        &mut warnings,
    )
    .expect("reparses");
    assert_eq!(again.layers, l.layers);
}

fn gx(values: &[GxLightValue], i: usize) -> GxLight {
    match values[i] {
        GxLightValue::Light(l) => l,
        GxLightValue::Ambient(_) => panic!("record {i} is ambient"),
    }
}

#[test]
fn gx_values_follow_the_formulas() {
    let Some((bytes, _)) = fixture() else { return };
    let m = parse_mrea(&bytes, NAME).expect("parses");
    let layers = m.light_layers();
    let o = LightOptions::default();
    let l0: Vec<GxLightValue> = layers[0].iter().map(|l| l.to_gx(&o)).collect();
    let l1: Vec<GxLightValue> = layers[1].iter().map(|l| l.to_gx(&o)).collect();

    // Local ambient (0.25, 0.25, 0.5) × q = 1: trunc(x · 255).
    assert_eq!(l0[0], GxLightValue::Ambient([63, 63, 127, 255]));

    // Directional: colour (1, 0.875, 0.75) → (255, 223, 191); position = −dir · 2²⁰.
    let d = gx(&l0, 1);
    assert_eq!(d.color, [255, 223, 191, 255]);
    let dir = layers[0][1].direction;
    assert_eq!(d.position, dir.map(|x| -x * 1_048_576.0));
    assert_eq!(d.position[1], -0.6f32 * 1_048_576.0);
    assert_eq!(d.angle_atten, [1.0, 0.0, 0.0]);
    assert_eq!(d.dist_atten, [1.0, 0.0, 0.0]);
    assert_eq!(d.radius(), f32::INFINITY);
    // Alt: directional built from the position field (0, 0, 10).
    let alt = layers[0][1].to_gx(&LightOptions {
        directional_from_position: true,
        ..o
    });
    let GxLightValue::Light(alt) = alt else {
        panic!("light")
    };
    assert_eq!(alt.position, [-0.0, -0.0, -10.0 * 1_048_576.0]);

    // Spot: cutoff 45° halved → 22.5°, COS2; quadratic falloff with q = 8.
    let s = gx(&l1, 0);
    let cr = (22.5f32 * std::f32::consts::PI / 180.0).cos();
    assert_eq!(s.angle_atten, [0.0, -cr / (1.0 - cr), 1.0 / (1.0 - cr)]);
    assert!(
        (s.angle_atten[2] - 13.137_085).abs() < 1e-3,
        "{:?}",
        s.angle_atten
    );
    assert_eq!(s.dist_atten, [0.0, 0.0, 25000.0 / 8.0]);
    assert_eq!(s.color, [0, 255, 0, 255]);
    assert_eq!(s.position, [5.0, -2.5, 3.0]);
    assert_eq!(s.direction, [-1.0, 0.0, 0.0]);
    // Radius: √(I / (k2/17)) with I = 1.
    assert!((s.radius() - (1.0f32 / (3125.0 / 17.0)).sqrt()).abs() < 1e-6);
    // Alt: the cutoff as stored (45°).
    let GxLightValue::Light(alt) = layers[1][0].to_gx(&LightOptions {
        spot_cutoff_as_stored: true,
        ..o
    }) else {
        panic!("light")
    };
    let cr45 = (45.0f32 * std::f32::consts::PI / 180.0).cos();
    assert_eq!(alt.angle_atten[2], 1.0 / (1.0 - cr45));

    // As a light set: layer 0 = ambient + one light.
    let set = LightSet::from_layer(&layers[0], &o);
    assert_eq!(set.ambient, [63, 63, 127, 255]);
    assert_eq!(set.lights.len(), 1);
}

#[test]
fn cli_json_uses_the_fixture_field_names_and_values() {
    let Some((bytes, j)) = fixture() else { return };
    let out = tevscope::cli::vertex::info_mrea(&bytes, NAME, true).expect("info");
    let v: Value = serde_json::from_str(&out).expect("json");
    for key in [
        "format",
        "game",
        "magic",
        "version",
        "area_transform",
        "world_model_count",
        "data_section_count",
        "section_index",
        "data_section_sizes",
        "data_section_offsets",
        "header_size",
    ] {
        assert_eq!(v[key], j[key], "{key}");
    }
    for key in ["offset", "magic", "layer_count", "light_record_size"] {
        assert_eq!(v["lights_section"][key], j["lights_section"][key], "{key}");
    }
    let got = v["lights_section"]["layers"].as_array().expect("layers");
    let want = j["lights_section"]["layers"].as_array().expect("layers");
    for (gl, wl) in got.iter().zip(want) {
        for (g, w) in gl
            .as_array()
            .expect("layer")
            .iter()
            .zip(wl.as_array().expect("layer"))
        {
            for (k, wv) in w.as_object().expect("light") {
                assert_eq!(&g[k], wv, "light field {k}");
            }
        }
    }
    // The computed GX values are reported beside each record.
    assert_eq!(
        v["lights_section"]["layers"][0][0]["gx"]["ambient_rgba8"],
        serde_json::json!([63, 63, 127, 255])
    );
    assert_eq!(
        v["lights_section"]["layers"][1][0]["gx"]["dist_atten"],
        serde_json::json!([0.0, 0.0, 3125.0])
    );
    let text = tevscope::cli::vertex::info_mrea(&bytes, NAME, false).expect("text");
    assert!(text.contains("light layer 1: 1 lights"), "{text}");
}

#[test]
fn hostile_input_never_panics_and_truncation_is_rejected() {
    let Some((bytes, _)) = fixture() else { return };
    let rejected = tevscope::testing::torture(&bytes, 2000, |d| parse_mrea(d, NAME));
    assert_eq!(rejected, bytes.len());
    // A lights count claiming more records than bytes is an error naming the field.
    let m = parse_mrea(&bytes, NAME).expect("parses");
    let start = m
        .lights_section
        .as_ref()
        .and_then(|l| l.offset)
        .expect("offset") as usize;
    let mut bad = bytes.clone();
    bad[start + 4..start + 8].copy_from_slice(&0x0100_0000u32.to_be_bytes());
    let e = parse_mrea(&bad, NAME).expect_err("count too large");
    assert_eq!(e.field, "lights.layer.count");
    assert_eq!(e.offset, start as u64 + 4);
}
