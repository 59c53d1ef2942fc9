//! MP3 models (CMDL version 5): the conformance pair read, reported and written back byte for
//! byte, and every material's synthesised GX program against `mp3_tev_expect.json`.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::mp3_material::Mp3Material;
use tevscope::gx::mp3::{Mp3Program, SynthesisOptions};
use tevscope::gx::tev::{PixelInputs, TevOptions, TevProgram, evaluate};
use tevscope::gx::{AlphaInput, ColorInput, KonstSel, TevReg};
use tevscope::schema::cmdl_mp3::Mp3CmdlInfo;
use tevscope::testing::conformance_dir;

const MODELS: [&str; 2] = ["0x0C3F1E7D00000100.CMDL", "0x0C3F1E7D00000101.CMDL"];

fn fixture(name: &str) -> Option<(Vec<u8>, Value)> {
    let dir = conformance_dir()?.join("mp3");
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    Some((bytes, serde_json::from_str(&json).unwrap()))
}

fn tev_expect() -> Option<Value> {
    let dir = conformance_dir()?.join("mp3");
    let text = std::fs::read_to_string(dir.join("mp3_tev_expect.json")).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

#[test]
fn mp3_models_write_back_byte_for_byte() {
    for name in MODELS {
        let Some((bytes, _)) = fixture(name) else {
            return;
        };
        let cmdl = Cmdl::parse(&bytes, name).unwrap();
        assert_eq!(cmdl.version, 5);
        assert!(cmdl.warnings.is_empty(), "{name}: {:?}", cmdl.warnings);
        assert!(cmdl.to_bytes() == bytes, "{name}: written bytes differ");
        // After a relayout (what an edit does) an unmodified model is still the same file.
        let mut relaid = cmdl.clone();
        relaid.refresh_layout();
        assert!(
            relaid.to_bytes() == bytes,
            "{name}: relayout changed the bytes"
        );
    }
}

/// Keys of the fixture JSON that describe how the generator made the file, not the file.
const GENERATOR_ONLY: [&str; 14] = [
    "array_counts_from_section_sizes",
    "file",
    "sha256",
    "asset_id",
    "role",
    "skinned_by",
    "textures",
    "tev_expect",
    "notes",
    "uv_layout",
    "section_count_check",
    "array_counts",
    // The material's name is the generator's label (files have none).
    "name",
    "material_name",
];

/// Every value of `want` is in `got` (numbers compared as f64 to 1e-6), key for key.
fn assert_covers(want: &Value, got: &Value, path: &str) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                if GENERATOR_ONLY.contains(&k.as_str()) {
                    continue;
                }
                let gv = g
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}/{k}: missing from the report"));
                assert_covers(wv, gv, &format!("{path}/{k}"));
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            assert_eq!(w.len(), g.len(), "{path}: length");
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                assert_covers(wv, gv, &format!("{path}/{i}"));
            }
        }
        (Value::Number(w), Value::Number(g)) => {
            let (w, g) = (w.as_f64().unwrap(), g.as_f64().unwrap());
            assert!(
                (w - g).abs() <= 1e-6 * w.abs().max(1.0),
                "{path}: {w} ≠ {g}"
            );
        }
        _ => assert_eq!(want, got, "{path}"),
    }
}

#[test]
fn info_json_reports_every_fixture_value() {
    for name in MODELS {
        let Some((bytes, json)) = fixture(name) else {
            return;
        };
        let cmdl = Cmdl::parse(&bytes, name).unwrap();
        let report = serde_json::to_value(Mp3CmdlInfo::new(&cmdl, name, bytes.len())).unwrap();
        assert_covers(&json, &report, name);
        // array_counts in the fixture are the real entries; ours are by section size, which
        // the fixture gives as array_counts_from_section_sizes.
        assert_covers(
            &json["array_counts_from_section_sizes"],
            &report["array_counts"],
            &format!("{name}/array_counts"),
        );
        // Each material's `gx` block says what mp3_tev_expect.json says of its program.
        let expect = tev_expect().unwrap();
        for m in expect["materials"].as_array().unwrap() {
            if m["cmdl"] != name {
                continue;
            }
            let i = m["material_index"].as_u64().unwrap() as usize;
            let gx = &report["material_sets"][0]["materials"][i]["gx"];
            let want = &m["default"];
            let label = format!("{name} material {i} gx");
            assert_eq!(gx["configuration"], want["config"], "{label}");
            assert_eq!(gx["blend"], want["blend"], "{label}");
            assert_eq!(gx["depth_write"], want["depth_write"], "{label}");
            assert_eq!(gx["depth_sorted"], want["depth_sorted"], "{label}");
            assert_eq!(
                gx["alpha_test"].is_null(),
                want["alpha_test"].is_null(),
                "{label}"
            );
            let stages = gx["tev_stages"].as_array().unwrap();
            let want_stages = want["stages"].as_array().unwrap();
            assert_eq!(stages.len(), want_stages.len(), "{label}");
            for (g, w) in stages.iter().zip(want_stages) {
                assert_eq!(g["recipe"], w["recipe"], "{label}");
                assert_eq!(g["texture_pass"], w["tex_pass"], "{label}");
                let out = |v: &Value| ["PREV", "C0", "C1", "C2"][v.as_u64().unwrap() as usize];
                assert_eq!(
                    out(&g["color_op"]["out_reg"]),
                    w["color"]["dest"],
                    "{label}"
                );
                assert_eq!(
                    out(&g["alpha_op"]["out_reg"]),
                    w["alpha"]["dest"],
                    "{label}"
                );
                let channel = w["tex_swap_alpha_channel"].as_str().unwrap_or("A");
                assert_eq!(g["tex_swap_rgba"][3], channel, "{label}: swap");
            }
            let konsts = gx["konst_colors_rgba"].as_array().unwrap();
            for (k, w) in konsts.iter().zip(want["konsts"].as_array().unwrap()) {
                assert_eq!(k[3], w["rgba8"][3], "{label}: konst alpha");
            }
            // C1 = DIFB.
            let difb = m["elements"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["type"] == "DIFB")
                .map_or(Value::from(vec![255; 4]), |e| e["rgba8"].clone());
            assert_eq!(gx["registers"]["c1"], difb, "{label}: C1");
        }
    }
}

fn material(cmdl_name: &str, index: usize) -> Option<Mp3Material> {
    let (bytes, _) = fixture(cmdl_name)?;
    let cmdl = Cmdl::parse(&bytes, cmdl_name).unwrap();
    Some(cmdl.mp3_materials.unwrap().sets[0].materials[index].clone())
}

fn color_name(c: ColorInput) -> &'static str {
    c.name()
}

/// The fixture's konst notation for a selector: "1", "k/8" or "Kn".
fn konst_name(k: KonstSel, alpha: bool) -> String {
    match k.0 {
        0..=7 => {
            let e = 8 - k.0;
            if e == 8 { "1".into() } else { format!("{e}/8") }
        }
        v @ 12..=15 if !alpha => format!("K{}", v - 12),
        v @ 0x1C..=0x1F if alpha => format!("K{}", v - 0x1C),
        v => format!("sel{v}"),
    }
}

fn reg_name(r: TevReg) -> &'static str {
    r.name()
}

/// Checks the program's stages against one fixture stage list: recipe order, sampled pass,
/// swap channel, raster, destinations, scale and (where read) konst selectors.
fn check_stages(
    p_stages: &[(tevscope::gx::TevStage, tevscope::gx::mp3::StageSource)],
    want: &[Value],
    label: &str,
) {
    assert_eq!(p_stages.len(), want.len(), "{label}: stage count");
    for (i, ((st, src), w)) in p_stages.iter().zip(want).enumerate() {
        let l = format!("{label} stage {i}");
        assert_eq!(src.recipe, w["recipe"].as_str().unwrap(), "{l}: recipe");
        assert_eq!(
            src.pass.map(|p| p.fourcc()),
            w["tex_pass"].as_str(),
            "{l}: sampled pass"
        );
        let swap = match st.tex_swap {
            0 => None,
            n => Some(["R", "G", "B"][usize::from(n - 1)]),
        };
        let want_swap = w["tex_swap_alpha_channel"].as_str().filter(|&c| c != "A");
        // TEXA[A] is the plain alpha: no swap table.
        assert_eq!(swap, want_swap, "{l}: swap channel");
        let reads_ras = st.raster != tevscope::gx::RasterChannel::None;
        assert_eq!(reads_ras, w["ras"].is_string(), "{l}: raster");
        assert_eq!(
            reg_name(st.color_op.out_reg),
            w["color"]["dest"].as_str().unwrap(),
            "{l}: colour dest"
        );
        assert_eq!(
            reg_name(st.alpha_op.out_reg),
            w["alpha"]["dest"].as_str().unwrap(),
            "{l}: alpha dest"
        );
        let scale = if st.color_op.scale == 1 { 2 } else { 1 };
        assert_eq!(
            scale,
            w["color"]["scale"].as_u64().unwrap(),
            "{l}: colour scale"
        );
        if st.color_in.contains(&ColorInput::Konst) {
            assert_eq!(
                konst_name(st.kcsel, false),
                w["kcsel"].as_str().unwrap(),
                "{l}: kcsel"
            );
        }
        if st.alpha_in.contains(&AlphaInput::Konst) {
            assert_eq!(
                konst_name(st.kasel, true),
                w["kasel"].as_str().unwrap(),
                "{l}: kasel"
            );
        }
        let _ = color_name;
    }
}

fn rgba8(v: &Value) -> [u8; 4] {
    let a = v.as_array().unwrap();
    [0, 1, 2, 3].map(|i| (a[i].as_f64().unwrap() * 255.0).round() as u8)
}

/// Runs a program on the fixture's eval inputs; the texel of each stage is its pass's sample.
fn run(
    m: &tevscope::gx::Material,
    sources: &[tevscope::gx::mp3::StageSource],
    inputs: &Value,
) -> [f64; 4] {
    let program = TevProgram::from_material(m, &TevOptions::default());
    let samples = &inputs["texture_sample_rgba_per_pass_type"];
    let ras = rgba8(&inputs["ras_rgba"]);
    let texels = program
        .stages
        .iter()
        .enumerate()
        .map(|(i, _)| {
            sources
                .get(i)
                .and_then(|s| s.pass)
                .map_or([0; 4], |p| rgba8(&samples[p.fourcc()]))
        })
        .collect();
    let out = evaluate(
        &program,
        &PixelInputs {
            texels,
            raster: [ras, ras],
        },
    );
    out.rgba.map(|c| f64::from(c) / 255.0)
}

fn assert_close(got: [f64; 4], want: &Value, label: &str) {
    let want: Vec<f64> = want
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    for c in 0..4 {
        // The hardware's 8-bit integer TEV against the fixture's float evaluation.
        assert!(
            (got[c] - want[c]).abs() <= 4.0 / 255.0,
            "{label}: component {c}: {got:?} ≠ {want:?}"
        );
    }
}

#[test]
fn every_fixture_material_synthesises_the_expected_program() {
    let Some(expect) = tev_expect() else {
        return;
    };
    let materials = expect["materials"].as_array().unwrap();
    assert_eq!(materials.len(), 13);
    for m in materials {
        let cmdl = m["cmdl"].as_str().unwrap();
        let index = m["material_index"].as_u64().unwrap() as usize;
        let label = format!("{cmdl} material {index} ({})", m["name"]);
        let mat = material(cmdl, index).unwrap();
        let built = mat.program(&SynthesisOptions::default());
        let Mp3Program {
            configuration,
            material: gx,
            stage_sources,
            lit,
            second_draw,
            ..
        } = &built.program;
        let want = &m["default"];
        assert_eq!(
            serde_json::to_value(configuration).unwrap(),
            want["config"],
            "{label}: configuration"
        );
        assert_eq!(
            *lit,
            want["lighting_stage_L"].as_bool().unwrap(),
            "{label}: L"
        );
        let pairs: Vec<_> = gx
            .stages
            .iter()
            .copied()
            .zip(stage_sources.iter().copied())
            .collect();
        check_stages(&pairs, want["stages"].as_array().unwrap(), &label);
        // Konsts: the components the program reads (the spec's K(0,0,0,α) leaves rgb unread).
        let konsts = want["konsts"].as_array().unwrap();
        assert_eq!(gx.konst_count, konsts.len(), "{label}: konst count");
        for (k, w) in konsts.iter().enumerate() {
            let w: Vec<u8> = w["rgba8"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u8)
                .collect();
            let rgb_read = gx
                .stages
                .iter()
                .any(|s| s.color_in.contains(&ColorInput::Konst) && s.kcsel.0 == 12 + k as u8);
            assert_eq!(gx.konst[k][3], w[3], "{label}: K{k}.a");
            if rgb_read {
                assert_eq!(gx.konst[k][..3], w[..3], "{label}: K{k}.rgb");
            }
        }
        let blend = tevscope::schema::cmdl_mp3::blend_factor_name;
        assert_eq!(
            blend(gx.blend.src),
            want["blend"]["src"],
            "{label}: blend src"
        );
        assert_eq!(
            blend(gx.blend.dst),
            want["blend"]["dst"],
            "{label}: blend dst"
        );
        assert_eq!(
            gx.depth_write,
            want["depth_write"].as_bool().unwrap(),
            "{label}: depth write"
        );
        assert_eq!(
            gx.depth_sorted,
            want["depth_sorted"].as_bool().unwrap(),
            "{label}: sorted"
        );
        match want["alpha_test"].as_object() {
            None => assert!(gx.alpha_test.is_always(), "{label}: alpha test"),
            Some(_) => {
                assert!(
                    !gx.alpha_test.passes(191) && gx.alpha_test.passes(192),
                    "{label}: a8 ≥ 192"
                );
            }
        }
        // C1 = DIFB before the first stage; PREV, C0, C2 start at 0.
        assert_eq!(gx.registers[0], [0; 4]);
        assert_eq!(gx.registers[1], [0; 4]);
        assert_eq!(gx.registers[3], [0; 4]);
        let inputs = &expect["eval_inputs"];
        assert_close(
            run(gx, stage_sources, inputs),
            &m["default_eval"]["prev_rgba"],
            &label,
        );
        match (second_draw, want["second_draw"].as_object()) {
            (None, None) => {}
            (Some((m2, sources)), Some(w2)) => {
                let pairs: Vec<_> = m2
                    .stages
                    .iter()
                    .copied()
                    .zip(sources.iter().copied())
                    .collect();
                check_stages(
                    &pairs,
                    w2["stages"].as_array().unwrap(),
                    &format!("{label} 2nd draw"),
                );
                assert_eq!(
                    blend(m2.blend.dst),
                    w2["blend"]["dst"],
                    "{label}: 2nd blend"
                );
                assert_close(
                    run(m2, sources, inputs),
                    &m["default_eval"]["second_draw_prev_rgba"],
                    &format!("{label} 2nd draw"),
                );
            }
            (got, want) => panic!("{label}: second draw {got:?} vs {want:?}"),
        }
    }
}

/// The `mp3_material` and `cmdl` fuzz harnesses (their shader variants, which run the
/// parser ones' checks too) on both models and on truncations and byte flips of them:
/// errors are fine, panics (round trip, report read-back, naga) are not.
#[test]
fn fuzz_harnesses_take_the_models_and_their_corruptions() {
    use tevscope::testing::fuzz::{cmdl_shaders, mp3_material_shaders as mp3_material};
    for name in MODELS {
        let Some((bytes, _)) = fixture(name) else {
            return;
        };
        mp3_material(&bytes);
        cmdl_shaders(&bytes);
        for len in (0..bytes.len()).step_by(61) {
            mp3_material(&bytes[..len]);
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..300 {
            let mut copy = bytes.clone();
            for _ in 0..3 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Flip bytes inside the material section (offset 0x60 on, 1120 bytes).
                let i = 0x60 + (state % 1120) as usize;
                copy[i] = (state >> 40) as u8;
            }
            mp3_material(&copy);
        }
    }
}

/// Each saved `mp3_material` fuzz input is read as a material section and does what the
/// file name says.
#[test]
fn saved_mp3_material_inputs_parse_as_named() {
    use tevscope::formats::Reader;
    use tevscope::formats::mp3_material::{Mp3Materials, SetLayout};
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/mp3_material");
    let parse = |name: &str| {
        let data = std::fs::read(dir.join(name)).unwrap();
        let mut warnings = Vec::new();
        let parsed = Mp3Materials::parse(
            vec![Reader::new(&data, name)],
            1,
            SetLayout::OneSection,
            &mut warnings,
        );
        (data, parsed, warnings)
    };
    let (_, r, _) = parse("count_beyond_bytes.bin");
    assert!(r.unwrap_err().to_string().contains("material_count"));
    let (_, r, _) = parse("pass_anim_size_past_pass.bin");
    let e = r.unwrap_err();
    assert!(e.field.ends_with("uv_anim_size"), "{e}");
    let (data, r, warnings) = parse("odd_pass_unknown_element.bin");
    let m = r.unwrap();
    assert!(
        warnings.iter().any(|w| w.contains("unknown element ZZZZ")),
        "{warnings:?}"
    );
    assert_eq!(m.sections()[0], data);
    let report = tevscope::schema::cmdl_mp3::Mp3MaterialInfo::new(&m.sets[0].materials[0]);
    assert_eq!(report.elements[0].kind.as_deref(), Some("\\x5cx4\\xff"));
    assert_eq!(
        report.to_material(&m.sets[0].materials[0]).as_ref(),
        Ok(&m.sets[0].materials[0])
    );
    let (data, r, _) = parse("short_anim_all_flags.bin");
    let m = r.unwrap();
    assert_eq!(m.sections()[0], data);
    assert_eq!(m.sets[0].materials.len(), 2);
}

/// Hostile headers are errors naming the field and its offset, before any allocation.
#[test]
fn hostile_mp3_headers_are_located_errors() {
    let Some((bytes, _)) = fixture(MODELS[0]) else {
        return;
    };
    let mut huge = bytes.clone();
    huge[0x28..0x2C].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = Cmdl::parse(&huge, "m").unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("material_set_count", 0x28),
        "{e}"
    );
    // A material whose size runs past its set: the error names the material.
    let mut long = bytes.clone();
    long[0x64..0x68].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes());
    let e = Cmdl::parse(&long, "m").unwrap_err();
    assert!(
        e.field.contains("material[0]") && e.field.ends_with("size"),
        "{e}"
    );
    assert_eq!(e.offset, 0x64, "{e}");
}

/// Two material sets: written in one section (Default) or one each (Alt), each file is read
/// back in the layout it was written in, from the section count alone, byte for byte.
#[test]
fn both_set_layouts_are_told_apart_by_the_section_count() {
    use tevscope::formats::mp3_material::SetLayout;
    let Some((bytes, _)) = fixture(MODELS[0]) else {
        return;
    };
    let cmdl = Cmdl::parse(&bytes, "m").unwrap();
    for layout in [SetLayout::OneSection, SetLayout::SectionPerSet] {
        let mut two = cmdl.clone();
        let mats = two.mp3_materials.as_mut().unwrap();
        let mut second = mats.sets[0].clone();
        second.materials[0].group_index = 7;
        mats.sets.push(second);
        mats.layout = layout;
        two.refresh_layout();
        let written = two.to_bytes();
        let back = Cmdl::parse(&written, "two").unwrap();
        let m = back.mp3_materials.as_ref().unwrap();
        assert_eq!(m.layout, layout);
        assert_eq!(m.sets.len(), 2);
        assert_eq!(m.sets[1].materials[0].group_index, 7);
        assert_eq!(back.surfaces.len(), cmdl.surfaces.len());
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert!(back.to_bytes() == written);
    }
}

/// The commands that take a model's material accept MP3 models: `info` (text and JSON),
/// `wgsl` (the synthesised program's shader) and `uvanim` (a PASS animation).
#[test]
fn cli_commands_take_mp3_models() {
    let Some(dir) = conformance_dir() else {
        return;
    };
    let model = dir.join("mp3").join(MODELS[0]).display().to_string();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(&["info", &model]);
    assert!(
        text.contains("FullRenderOpaque, 6 TEV stages (R1 R2 R5a R5 R6 R6b)"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&run(&["info", "--json", &model])).unwrap();
    assert_eq!(json["game"], "MP3");
    assert_eq!(
        json["material_sets"][0]["materials"][3]["gx"]["tev_stages"][4]["texture_pass"],
        "INCA"
    );
    let wgsl = run(&["wgsl", &model, "--material", "3"]);
    assert!(
        wgsl.contains("fn fs_main") || wgsl.contains("@fragment"),
        "{wgsl}"
    );
    let uv: Value = serde_json::from_str(&run(&[
        "uvanim",
        &model,
        "--material",
        "4",
        "--time",
        "1",
        "--json",
    ]))
    .unwrap();
    assert_eq!(uv["animations"][0]["mode"], 7, "{uv}");
}
