//! CMDL and material-set end-to-end tests: conformance fixtures (every value in their JSONs),
//! byte-identical round trips, models built from scratch, and hostile input.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use tevscope::cli::cmdl::{cmdl_json, info_cmdl};
use tevscope::formats::cmdl::{
    Cmdl, CmdlBuilder, CmdlOptions, MeshVertex, Normals, PrimitiveKind, SurfaceDesc, UvSource,
    VertexRef,
};
use tevscope::formats::material::{Material, MaterialBuilder, MaterialSet, VertexAttributes};
use tevscope::formats::{ErrorKind, Game};
use tevscope::gx;
use tevscope::testing::{conformance_dir, conformance_file, torture};

// ------------------------------------------------------------------------------------------------
// Helpers

/// Every key/element of `expected` must be present in `actual` with the same value (numbers
/// compared as f64 exactly). Returns the paths that differ.
fn diff_subset(expected: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match a.get(k) {
                    Some(av) => diff_subset(ev, av, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: missing")),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.push(format!("{path}: length {} vs {}", e.len(), a.len()));
                return;
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                diff_subset(ev, av, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            if e.as_f64() != a.as_f64() {
                out.push(format!("{path}: {e} vs {a}"));
            }
        }
        (e, a) => {
            if e != a {
                out.push(format!("{path}: {e} vs {a}"));
            }
        }
    }
}

fn assert_subset(expected: &Value, actual: &Value, path: &str) {
    let mut out = Vec::new();
    diff_subset(expected, actual, path, &mut out);
    assert!(
        out.is_empty(),
        "{} differences:\n{}",
        out.len(),
        out.join("\n")
    );
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// Checks the typed GX view of every material against the decoded fields of the JSON.
fn check_gx_materials(cmdl: &Cmdl, json: &Value) {
    for (si, (set, jset)) in cmdl
        .material_sets
        .iter()
        .zip(json["material_sets"].as_array().unwrap())
        .enumerate()
    {
        for (mi, (m, jm)) in set.materials.iter().zip(jm_list(jset)).enumerate() {
            let at = format!("set {si} material {mi}");
            let g = m.to_gx().unwrap_or_else(|e| panic!("{at}: {e}"));
            let flags = u64_of(&jm["flags"]) as u32;
            assert_eq!(g.flags, flags, "{at}");
            assert_eq!(
                g.texture_count,
                jm["texture_indices"].as_array().unwrap().len()
            );
            // Konsts.
            let rgba: Vec<[u8; 4]> = jm["konst_colors_rgba"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let v: Vec<u8> = c
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| u64_of(x) as u8)
                        .collect();
                    [v[0], v[1], v[2], v[3]]
                })
                .collect();
            assert_eq!(g.konst_count, rgba.len().min(4), "{at}");
            for (k, c) in rgba.iter().enumerate().take(4) {
                assert_eq!(g.konst[k], *c, "{at} konst {k}");
            }
            assert_eq!(g.registers, gx::Material::DEFAULT_REGISTERS);
            // Blend, alpha test, depth.
            let decoded = &jm["flags_decoded"];
            let punch = decoded["punchthrough_0x20"].as_bool().unwrap();
            let src = gx::BlendFactor::from_u16(u64_of(&jm["blend_source_factor"]) as u16).unwrap();
            let dst =
                gx::BlendFactor::from_u16(u64_of(&jm["blend_destination_factor"]) as u16).unwrap();
            if punch {
                assert_eq!(g.blend, gx::Blend::OPAQUE);
                assert_eq!(g.alpha_test, gx::AlphaTest::PUNCHTHROUGH);
            } else {
                assert_eq!((g.blend.src, g.blend.dst), (src, dst), "{at}");
                assert_eq!(g.alpha_test, gx::AlphaTest::ALWAYS);
            }
            assert_eq!(
                g.depth_write,
                decoded["depth_write_0x80"].as_bool().unwrap()
            );
            assert_eq!(
                g.depth_sorted,
                decoded["transparent_0x10"].as_bool().unwrap()
            );
            // Colour channel.
            let chans = jm["color_channel_flags"].as_array().unwrap();
            assert_eq!(g.channel_count as usize, chans.len());
            assert_eq!(
                g.color0,
                chans
                    .first()
                    .map(|w| gx::ChannelControl::from_word(u64_of(w) as u32))
            );
            // Stages.
            let stages = jm["tev_stages"].as_array().unwrap();
            assert_eq!(g.stages.len(), stages.len());
            for (k, (s, js)) in g.stages.iter().zip(stages).enumerate() {
                let names = |v: &Value| -> Vec<String> {
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_str().unwrap().to_string())
                        .collect()
                };
                let ci: Vec<String> = s.color_in.iter().map(|c| c.name().to_string()).collect();
                let ai: Vec<String> = s.alpha_in.iter().map(|c| c.name().to_string()).collect();
                assert_eq!(ci, names(&js["color_inputs"]), "{at} stage {k}");
                assert_eq!(ai, names(&js["alpha_inputs"]), "{at} stage {k}");
                for (op, jop) in [(s.color_op, &js["color_op"]), (s.alpha_op, &js["alpha_op"])] {
                    assert_eq!(op.op as u64, u64_of(&jop["op"]), "{at} stage {k}");
                    assert_eq!(op.bias as u64, u64_of(&jop["bias"]));
                    assert_eq!(op.scale as u64, u64_of(&jop["scale"]));
                    assert_eq!(op.clamp, jop["clamp"].as_bool().unwrap());
                    assert_eq!(op.out_reg.index() as u64, u64_of(&jop["out_reg"]));
                }
                assert_eq!(s.kcsel.0 as u64, u64_of(&js["konst_color_input"]));
                assert_eq!(s.kasel.0 as u64, u64_of(&js["konst_alpha_input"]));
                assert_eq!(
                    s.raster.to_byte() as u64,
                    u64_of(&js["rasterized_color_input"])
                );
                let opt = |v: &Value| {
                    let b = u64_of(v) as u8;
                    (b != 0xFF).then_some(b)
                };
                assert_eq!(s.tex_map, opt(&js["texture_index"]));
                assert_eq!(s.tex_coord, opt(&js["tex_coord_index"]));
            }
            // Texgens.
            let tgs = jm["texgens"].as_array().unwrap();
            assert_eq!(g.texgens.len(), tgs.len());
            for (t, jt) in g.texgens.iter().zip(tgs) {
                assert_eq!(t.kind.bits() as u64, u64_of(&jt["type"]));
                assert_eq!(t.kind.name(), jt["type_name"].as_str().unwrap());
                assert_eq!(t.source.bits() as u64, u64_of(&jt["source"]));
                assert_eq!(t.source.name(), jt["source_name"].as_str().unwrap());
                assert_eq!(t.gx_tex_mtx as u64, u64_of(&jt["gx_tex_mtx"]));
                assert_eq!(t.normalize, jt["normalize"].as_bool().unwrap());
                assert_eq!(t.gx_post_mtx as u64, u64_of(&jt["gx_post_tex_mtx"]));
                assert_eq!(t.to_word() as u64, u64_of(&jt["flags"]));
            }
            // UV animations.
            let anims = jm["uv_animations"].as_array().unwrap();
            assert_eq!(g.uv_animations.len(), anims.len());
            for (a, ja) in g.uv_animations.iter().zip(anims) {
                assert_eq!(a.mode() as u64, u64_of(&ja["mode"]));
                let params: Vec<u32> = f32s(&ja["parameters"])
                    .iter()
                    .map(|p| p.to_bits())
                    .collect();
                assert_eq!(a.param_words(), params, "{at}");
            }
        }
    }
}

fn jm_list(jset: &Value) -> &Vec<Value> {
    jset["materials"].as_array().unwrap()
}

/// The fixture checks shared by the two CMDLs the third-party serializer made.
fn check_serializer_fixture(name: &str) {
    let Some((bytes, json)) = conformance_file(name) else {
        return;
    };
    let cmdl = Cmdl::parse(&bytes, name).unwrap();
    assert!(cmdl.warnings.is_empty(), "{:?}", cmdl.warnings);
    assert_eq!(u64_of(&json["version"]), cmdl.version as u64);
    assert_eq!(cmdl.game(), Game::Mp1);
    assert_eq!(u64_of(&json["flags"]), cmdl.flags as u64);
    assert_eq!(f32s(&json["aabb"]["min"]), cmdl.aabb.min);
    assert_eq!(f32s(&json["aabb"]["max"]), cmdl.aabb.max);
    assert_eq!(
        u64_of(&json["material_set_count"]),
        cmdl.material_sets.len() as u64
    );

    // Every value of the JSON, through the CLI's JSON (same field names), except the arrays,
    // which list only real elements (checked as a prefix below) and file metadata.
    let mine = cmdl_json(&cmdl, name, bytes.len());
    let mut expected = json.clone();
    for k in [
        "file",
        "sha256",
        "asset_id",
        "notes",
        "skinned_by",
        "positions",
        "normals",
        "uvs",
    ] {
        expected.as_object_mut().unwrap().remove(k);
    }
    assert_subset(&expected, &mine, name);

    // Arrays: the JSON lists the real elements; the parser counts by section size.
    let positions: Vec<Vec<f32>> = json["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(f32s)
        .collect();
    assert!(cmdl.positions.len() >= positions.len());
    for (p, e) in cmdl.positions.values.iter().zip(&positions) {
        assert_eq!(p.to_vec(), *e);
    }
    let normals: Vec<Vec<f32>> = json["normals"]
        .as_array()
        .unwrap()
        .iter()
        .map(f32s)
        .collect();
    for (i, e) in normals.iter().enumerate() {
        assert_eq!(cmdl.normal(i).unwrap().to_vec(), *e);
    }
    let uvs: Vec<Vec<f32>> = json["uvs"].as_array().unwrap().iter().map(f32s).collect();
    for (uv, e) in cmdl.uvs.values.iter().zip(&uvs) {
        assert_eq!(uv.to_vec(), *e);
    }
    assert!(cmdl.short_uvs.is_none());
    assert!(json["lightmap_uvs"].is_null());

    // Surfaces, directly from the decoded meshes.
    let surfaces = json["surfaces"].as_array().unwrap();
    assert_eq!(cmdl.surfaces.len(), surfaces.len());
    for (s, js) in cmdl.surfaces.iter().zip(surfaces) {
        let mesh = &s.mesh;
        assert!(mesh.error.is_none());
        assert_eq!(s.material_index as u64, u64_of(&js["material_index"]));
        assert_eq!(mesh.layout.tex0_source, UvSource::Float);
        let prims = js["primitives"].as_array().unwrap();
        assert_eq!(mesh.primitives.len(), prims.len());
        for (p, jp) in mesh.primitives.iter().zip(prims) {
            assert_eq!(p.opcode as u64, u64_of(&jp["opcode"]));
            assert_eq!(p.kind.name(), jp["primitive"].as_str().unwrap());
            assert_eq!(p.vertex_format as u64, u64_of(&jp["vertex_format"]));
            let verts = jp["vertices_pos_nrm_uv0"].as_array().unwrap();
            assert_eq!(p.vertices.len(), verts.len());
            for (&i, jv) in p.vertices.iter().zip(verts) {
                let v = &mesh.vertices[i as usize];
                let e: Vec<u64> = jv.as_array().unwrap().iter().map(u64_of).collect();
                assert_eq!(
                    vec![
                        v.position as u64,
                        v.normal.unwrap() as u64,
                        v.tex[0].unwrap() as u64
                    ],
                    e
                );
                assert_eq!(v.colors, [None, None]);
                assert_eq!(v.matrix_indices, [None; 8]);
            }
        }
        let tris: Vec<[u16; 3]> = js["triangles_pos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let v: Vec<u16> = t
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| u64_of(x) as u16)
                    .collect();
                [v[0], v[1], v[2]]
            })
            .collect();
        assert_eq!(mesh.triangle_positions(), tris);
        assert_eq!(mesh.triangles.len() as u64, u64_of(&js["triangle_count"]));
        // Unique references really are unique.
        let mut seen = std::collections::HashSet::new();
        assert!(mesh.vertices.iter().all(|v| seen.insert(*v)));
    }
    check_gx_materials(&cmdl, &json);
    assert_eq!(cmdl.to_bytes(), bytes, "{name} round trip");
}

// ------------------------------------------------------------------------------------------------
// Conformance fixtures

#[test]
fn cube_skinned_matches_every_json_value() {
    check_serializer_fixture("mp1_cube_skinned.CMDL");
}

#[test]
fn tev_quad_matches_every_json_value() {
    check_serializer_fixture("0x7EC00000.CMDL");
    let Some((bytes, _)) = conformance_file("0x7EC00000.CMDL") else {
        return;
    };
    let cmdl = Cmdl::parse(&bytes, "quad").unwrap();
    assert_eq!(cmdl.material_sets[0].materials.len(), 48);
    // The padding element the size-derived count includes.
    assert_eq!(cmdl.positions.len(), 5);
    assert_eq!(cmdl.positions.remainder.len(), 4);
    assert_eq!(cmdl.positions.values[4], [0.0; 3]);
}

#[test]
fn tev_quad_materials_match_tev_cases() {
    let Some((cases, _)) = conformance_file("tev_cases.json") else {
        return;
    };
    let cases: Value = serde_json::from_slice(&cases).unwrap();
    let dir = conformance_dir().unwrap();
    let bytes = std::fs::read(dir.join("0x7EC00000.CMDL")).unwrap();
    let cmdl = Cmdl::parse(&bytes, "quad").unwrap();
    let set = &cmdl.material_sets[0];
    let cases = cases["cases"].as_array().unwrap();
    assert_eq!(cases.len(), set.materials.len());
    for case in cases {
        let i = u64_of(&case["material_index"]) as usize;
        let m = &set.materials[i];
        let g = m.to_gx().unwrap();
        let ids: Vec<String> = set
            .material_texture_ids(i)
            .iter()
            .map(|id| format!("0x{:08X}", id.unwrap()))
            .collect();
        let jids: Vec<String> = case["texture_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, jids, "case {i}");
        let stages = case["stages"].as_array().unwrap();
        assert_eq!(g.stages.len(), stages.len(), "case {i}");
        for (k, (s, js)) in g.stages.iter().zip(stages).enumerate() {
            let at = format!("case {i} stage {k}");
            for (part, ins, op) in [
                ("color", s.color_in.map(|c| c.name()), s.color_op),
                ("alpha", s.alpha_in.map(|c| c.name()), s.alpha_op),
            ] {
                let j = &js[part];
                for (n, name) in ["a", "b", "c", "d"].iter().enumerate() {
                    assert_eq!(ins[n], j[name].as_str().unwrap(), "{at} {part}.{name}");
                }
                assert_eq!(op.op as u64, u64_of(&j["op"]), "{at}");
                assert_eq!(op.bias as u64, u64_of(&j["bias"]), "{at}");
                assert_eq!(op.scale as u64, u64_of(&j["scale"]), "{at}");
                assert_eq!(op.clamp, j["clamp"].as_bool().unwrap(), "{at}");
                assert_eq!(op.out_reg.index() as u64, u64_of(&j["dest"]), "{at}");
            }
            assert_eq!(s.kcsel.0 as u64, u64_of(&js["kcsel"]), "{at}");
            assert_eq!(s.kasel.0 as u64, u64_of(&js["kasel"]), "{at}");
            assert_eq!(
                s.raster.to_byte() as u64,
                u64_of(&js["raster_channel"]),
                "{at}"
            );
            match js["texture"].as_object() {
                None => assert_eq!(s.tex_map, None, "{at}"),
                Some(t) => {
                    let slot = s.tex_map.unwrap() as usize;
                    assert_eq!(slot as u64, u64_of(&t["material_texture_slot"]), "{at}");
                    assert_eq!(ids[slot], t["texture_id"].as_str().unwrap(), "{at}");
                }
            }
            let w = &js["words"];
            let raw = &m.tev_stages[k];
            assert_eq!(raw.color_inputs as u64, u64_of(&w["color_input_flags"]));
            assert_eq!(raw.alpha_inputs as u64, u64_of(&w["alpha_input_flags"]));
            assert_eq!(raw.color_combine as u64, u64_of(&w["color_combine_flags"]));
            assert_eq!(raw.alpha_combine as u64, u64_of(&w["alpha_combine_flags"]));
            assert_eq!(raw.tex_map as u64, u64_of(&w["texture_tev_input"]));
            assert_eq!(raw.tex_coord as u64, u64_of(&w["tex_coord_tev_input"]));
        }
        // Render state promised by the fixture: ONE/ZERO, no alpha test, depth write.
        assert_eq!(g.blend, gx::Blend::OPAQUE);
        assert!(g.alpha_test.is_always());
        assert!(g.depth_write);
    }
}

#[test]
fn pwe_models_match_their_json() {
    let Some(dir) = conformance_dir() else { return };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("pwe")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("CMDL") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let json: Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("CMDL.json")).unwrap(),
        )
        .unwrap();
        let cmdl = Cmdl::parse(&bytes, &name).unwrap();
        assert_eq!(cmdl.version as u64, u64_of(&json["version"]), "{name}");
        assert_eq!(cmdl.flags as u64, u64_of(&json["flags"]), "{name}");
        assert_eq!(cmdl.aabb.min.to_vec(), f32s(&json["aabb"]["min"]), "{name}");
        assert_eq!(cmdl.aabb.max.to_vec(), f32s(&json["aabb"]["max"]), "{name}");
        assert_eq!(
            cmdl.material_sets.len() as u64,
            u64_of(&json["material_set_count"])
        );
        let counts: Vec<u64> = cmdl
            .material_sets
            .iter()
            .map(|s| s.materials.len() as u64)
            .collect();
        let jcounts: Vec<u64> = json["material_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(u64_of)
            .collect();
        assert_eq!(counts, jcounts, "{name}");
        let stages: Vec<Vec<u64>> = cmdl
            .material_sets
            .iter()
            .map(|s| {
                s.materials
                    .iter()
                    .map(|m| m.tev_stages.len() as u64)
                    .collect()
            })
            .collect();
        let jstages: Vec<Vec<u64>> = json["tev_stage_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_array().unwrap().iter().map(u64_of).collect())
            .collect();
        assert_eq!(stages, jstages, "{name}");
        let ids: Vec<Vec<String>> = cmdl
            .material_sets
            .iter()
            .map(|s| {
                s.texture_ids
                    .iter()
                    .map(|&id| format!("0x{id:08X}"))
                    .collect()
            })
            .collect();
        let jids: Vec<Vec<String>> = json["texture_file_ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect()
            })
            .collect();
        assert_eq!(ids, jids, "{name}");
        let c = cmdl.array_counts();
        let jc = &json["array_counts"];
        assert_eq!(c.positions as u64, u64_of(&jc["positions"]), "{name}");
        assert_eq!(c.normals as u64, u64_of(&jc["normals"]), "{name}");
        // The cooker writes 16-byte colours; the game's layout counts size / 4.
        assert_eq!(c.colors as u64, u64_of(&jc["colors"]), "{name}");
        assert_eq!(c.uvs as u64, u64_of(&jc["uvs"]), "{name}");
        assert_eq!(c.short_uvs as u64, u64_of(&jc["lightmap_uvs"]), "{name}");
        let surfaces = json["surfaces"].as_array().unwrap();
        assert_eq!(cmdl.surfaces.len() as u64, u64_of(&json["surface_count"]));
        for (j, (s, js)) in cmdl.surfaces.iter().zip(surfaces).enumerate() {
            let mesh = &s.mesh;
            assert!(mesh.error.is_none(), "{name} surface {j}: {:?}", mesh.error);
            assert_eq!(s.material_index as u64, u64_of(&js["material_index"]));
            assert_eq!(
                mesh.vertex_ref_count() as u64,
                u64_of(&js["vertex_refs"]),
                "{name} {j}"
            );
            assert_eq!(
                mesh.triangles.len() as u64,
                u64_of(&js["triangles"]),
                "{name} {j}"
            );
            // The JSON's tool does not stop at the NOP padding: it counts every 3 zero bytes
            // after the last command as an empty primitive (opcode 0, count 0). We stop, as the
            // spec says; the real commands plus those 3-byte chunks give its count.
            assert!(mesh.padding_bytes > 0);
            assert_eq!(
                (mesh.primitives.len() + mesh.padding_bytes / 3) as u64,
                u64_of(&js["primitive_count"]),
                "{name} surface {j}"
            );
            // Lines-only surfaces keep their segments for debug views.
            if mesh.triangles.is_empty() {
                assert!(!mesh.lines.is_empty());
            }
        }
        assert_eq!(cmdl.triangle_count() as u64, u64_of(&json["triangles"]));
        // Their materials must be renderable.
        for set in &cmdl.material_sets {
            set.gx_materials().unwrap();
        }
        assert_eq!(cmdl.to_bytes(), bytes, "{name} round trip");
        checked += 1;
    }
    assert_eq!(checked, 5);
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    let Some(dir) = conformance_dir() else { return };
    let mut files = vec![
        dir.join("mp1_cube_skinned.CMDL"),
        dir.join("0x7EC00000.CMDL"),
        dir.join("areas/mp1_dl_size_wrapped.CMDL"),
        dir.join("real/randomprime/randovania_gamecube.CMDL"),
    ];
    for e in std::fs::read_dir(dir.join("pwe")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) == Some("CMDL") {
            files.push(p);
        }
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let cmdl = Cmdl::parse(&bytes, &path.display().to_string()).unwrap();
        assert_eq!(cmdl.to_bytes(), bytes, "{}", path.display());
        // Each material set section also round-trips on its own.
        let secs = cmdl.data_sections();
        for (i, set) in cmdl.material_sets.iter().enumerate() {
            let s = &secs[i];
            let (again, _) = MaterialSet::from_bytes(
                &bytes[s.offset..s.offset + s.size],
                "set",
                Game::Mp1,
                &Default::default(),
            )
            .unwrap();
            assert_eq!(&again, set);
            assert_eq!(again.to_bytes(), &bytes[s.offset..s.offset + s.size]);
        }
        // Padding to a PAK boundary (0xFF) is kept too.
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0xFF; 32]);
        assert_eq!(Cmdl::parse(&padded, "p").unwrap().to_bytes(), padded);
    }
}

/// `formats.md` §9.5.9: a display list whose size field wrapped at 16 bits draws completely by
/// default, with one warning; the strict (game) rule cuts it at the declared size.
#[test]
fn wrapped_display_list_size_draws_the_whole_list() {
    let Some((bytes, json)) = conformance_file("areas/mp1_dl_size_wrapped.CMDL") else {
        return;
    };
    let cmdl = Cmdl::parse(&bytes, "wrapped.CMDL").unwrap();
    let s0 = &json["surfaces"][0];
    let surface = &cmdl.surfaces[0];
    assert_eq!(
        u64::from(surface.display_list_word),
        u64_of(&s0["display_list_size_field"])
    );
    assert_eq!(
        surface.display_list_size() as u64,
        u64_of(&s0["declared_display_list_size"])
    );
    let mesh = &surface.mesh;
    assert!(mesh.error.is_none(), "{:?}", mesh.error);
    assert_eq!(
        mesh.primitives.len() as u64,
        u64_of(&s0["default_rule_result"]["primitives"])
    );
    assert_eq!(mesh.triangles.len() as u64, u64_of(&s0["triangle_count"]));
    assert_eq!(
        mesh.bytes_used as u64,
        u64_of(&s0["display_list_bytes_used"])
    );
    let wrap_warnings: Vec<_> = cmdl
        .warnings
        .iter()
        .filter(|w| w.contains("runs past its declared size"))
        .collect();
    assert_eq!(wrap_warnings.len(), 1, "{:?}", cmdl.warnings);
    assert!(wrap_warnings[0].contains("size wrapped at 16 bits"));
    assert!(wrap_warnings[0].contains("surface[0].display_list_size"));
    // Surface 1 is an ordinary list.
    let s1 = &cmdl.surfaces[1].mesh;
    assert_eq!(s1.triangle_positions(), vec![[0, 1, 49]]);

    let strict = CmdlOptions {
        decode: tevscope::formats::cmdl::DecodeOptions {
            strict_display_list_size: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let cut = Cmdl::parse_with(&bytes, "wrapped.CMDL", &strict).unwrap();
    let r = &s0["strict_declared_size_result"];
    assert_eq!(
        cut.surfaces[0].mesh.primitives.len() as u64,
        u64_of(&r["complete_primitives_inside_declared_size"])
    );
    assert_eq!(
        cut.surfaces[0].mesh.triangles.len() as u64,
        u64_of(&r["triangles"])
    );

    // Rebuilding the sections writes the true size, and the list survives it.
    let mut rebuilt = cmdl.clone();
    rebuilt.refresh_layout();
    let again = Cmdl::parse(&rebuilt.to_bytes(), "rebuilt.CMDL").unwrap();
    assert_eq!(
        again.surfaces[0].display_list_size() as u64,
        u64_of(&s0["true_padded_size"])
    );
    assert_eq!(again.surfaces[0].mesh.triangles, mesh.triangles);
    assert!(!again.warnings.iter().any(|w| w.contains("declared size")));
}

#[test]
fn cli_reports_text_and_json() {
    let Some((bytes, json)) = conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    let text = info_cmdl(&bytes, "cube", false).unwrap();
    assert!(text.contains("CMDL version 2 (MP1)"), "{text}");
    assert!(
        text.contains("stage 0: PREV = ZERO + lerp(ZERO, TEXC, RASC), clamp"),
        "{text}"
    );
    assert!(
        text.contains("surface 1: material 1, 1 primitive(s) [triangles ×1]"),
        "{text}"
    );
    assert!(text.contains("Scroll(offset_u=0.25, offset_v=-0.5, scale_u=0.125, scale_v=2)"));
    let out: Value = serde_json::from_str(&info_cmdl(&bytes, "cube", true).unwrap()).unwrap();
    assert_eq!(
        out["material_sets"],
        cmdl_json(&Cmdl::parse(&bytes, "c").unwrap(), "c", 0)["material_sets"]
    );
    assert_eq!(out["data_sections"], json["data_sections"]);
    assert!(info_cmdl(&bytes[..100], "cut", false).is_err());
}

// ------------------------------------------------------------------------------------------------
// Validation and hostile input

#[test]
fn material_validation_errors_name_field_and_offset() {
    let Some((bytes, _)) = conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    // Material 2 of set 0 starts at 0x16C; its stage 1 colour inputs are at 0x1C4.
    let mut bad = bytes.clone();
    bad[0x1C4..0x1C8].copy_from_slice(&0x10u32.to_be_bytes());
    let e = Cmdl::parse(&bad, "cube").unwrap_err();
    assert_eq!(
        e.field,
        "material_set[0].material[2].tev_stage[1].color_inputs"
    );
    assert_eq!(e.offset, 0x1C4);
    assert!(e.to_string().starts_with(
        "cube: material_set[0].material[2].tev_stage[1].color_inputs at byte offset 0x1c4"
    ));
    // Lenient: parses, warns, and still writes the same bytes.
    let opts = CmdlOptions {
        material: tevscope::formats::material::MaterialOptions {
            lenient: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let c = Cmdl::parse_with(&bad, "cube", &opts).unwrap();
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("tev_stage[1].color_inputs"))
    );
    assert!(c.material_sets[0].materials[2].to_gx().is_err());
    assert_eq!(c.to_bytes(), bad);
}

#[test]
fn display_list_claiming_65535_vertices_is_checked_against_the_bytes_left() {
    let Some((bytes, _)) = conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    // Surface 0 starts at 1376; its display list at +0x40: opcode, then the u16 count.
    let at = 1376 + 0x40;
    assert_eq!(bytes[at], 0x98);
    let mut bad = bytes.clone();
    bad[at + 1] = 0xFF;
    bad[at + 2] = 0xFF;
    let c = Cmdl::parse(&bad, "cube").unwrap();
    let e = c.surfaces[0].mesh.error.as_ref().unwrap();
    assert_eq!(e.field, "surface[0].display_list.primitive[0].vertices");
    assert_eq!(e.offset, at as u64 + 3);
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }));
    assert!(c.surfaces[0].mesh.primitives.is_empty());
    assert_eq!(
        c.surfaces[1].mesh.triangles.len(),
        4,
        "other surfaces are kept"
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("surface[0].display_list"))
    );
    assert_eq!(c.to_bytes(), bad);
    let strict = CmdlOptions {
        strict_display_lists: true,
        ..Default::default()
    };
    assert_eq!(
        Cmdl::parse_with(&bad, "cube", &strict).unwrap_err().field,
        e.field
    );
    // An index past its array.
    let mut bad = bytes.clone();
    bad[at + 3..at + 5].copy_from_slice(&8u16.to_be_bytes());
    let c = Cmdl::parse(&bad, "cube").unwrap();
    let e = c.surfaces[0].mesh.error.as_ref().unwrap();
    assert_eq!(
        e.field,
        "surface[0].display_list.primitive[0].vertex[0].position"
    );
    assert_eq!(e.offset, at as u64 + 3);
}

#[test]
fn attribute_bits_the_game_ignores_warn_once_at_the_material() {
    let Some((bytes, _)) = conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    let clean = Cmdl::parse(&bytes, "cube").unwrap();
    // Material 0's vertex attribute word is at 0x8C (flags, texture count, one index).
    assert_eq!(&bytes[0x8C..0x90], &0x30Fu32.to_be_bytes());
    for (word, what) in [(0x00C0_030Fu32, "TEX7"), (0x0100_030F, "matrix-index")] {
        let mut odd = bytes.clone();
        odd[0x8C..0x90].copy_from_slice(&word.to_be_bytes());
        let c = Cmdl::parse(&odd, "cube").unwrap();
        let hits: Vec<&String> = c.warnings.iter().filter(|w| w.contains(what)).collect();
        assert_eq!(hits.len(), 1, "{:?}", c.warnings);
        assert!(hits[0].starts_with(
            "cube: material_set[0].material[0].vertex_attribute_flags at byte offset 0x8c"
        ));
        // Ignored as the game does: the geometry is unchanged.
        for (a, b) in c.surfaces.iter().zip(&clean.surfaces) {
            assert_eq!(a.mesh.triangles, b.mesh.triangles);
            assert_eq!(a.mesh.vertices, b.mesh.vertices);
        }
        assert_eq!(c.to_bytes(), odd);
    }
    // Alt: honouring TEX7 reads an extra index per vertex, which this list does not have.
    let mut odd = bytes.clone();
    odd[0x8C..0x90].copy_from_slice(&0x00C0_030Fu32.to_be_bytes());
    let alt = CmdlOptions {
        decode: tevscope::formats::cmdl::DecodeOptions {
            honour_tex7: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let c = Cmdl::parse_with(&odd, "cube", &alt).unwrap();
    assert_ne!(
        c.surfaces[0].mesh.triangles,
        clean.surfaces[0].mesh.triangles
    );
}

#[test]
fn hostile_section_tables_are_rejected_before_allocating() {
    let Some((bytes, _)) = conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    let mut bad = bytes.clone();
    bad[0x24..0x28].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
    let e = Cmdl::parse(&bad, "x").unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("data_section_count", 0x24));
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }));
    // A section size running past the file.
    let mut bad = bytes.clone();
    bad[0x2C..0x30].copy_from_slice(&0x7FFF_0000u32.to_be_bytes());
    let e = Cmdl::parse(&bad, "x").unwrap_err();
    assert_eq!(e.field, "data_section_sizes[0]");
    // Surface count beyond the table.
    let mut bad = bytes.clone();
    bad[1344..1348].copy_from_slice(&7u32.to_be_bytes());
    let e = Cmdl::parse(&bad, "x").unwrap_err();
    assert_eq!(e.field, "data_section_count");
    // Material index beyond set 0.
    let mut bad = bytes.clone();
    bad[1376 + 0xC..1376 + 0x10].copy_from_slice(&3u32.to_be_bytes());
    let e = Cmdl::parse(&bad, "x").unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.offset),
        ("surface[0].material_index", 1376 + 0xC)
    );
}

#[test]
fn torture_every_fixture() {
    let Some(dir) = conformance_dir() else { return };
    let mut files = vec![
        dir.join("mp1_cube_skinned.CMDL"),
        dir.join("0x7EC00000.CMDL"),
        dir.join("areas/mp1_dl_size_wrapped.CMDL"),
        dir.join("real/randomprime/randovania_gamecube.CMDL"),
    ];
    for e in std::fs::read_dir(dir.join("pwe")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) == Some("CMDL") {
            files.push(p);
        }
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        // The sphere is large: fewer random rounds keep the test quick.
        let rounds = if bytes.len() > 20_000 { 300 } else { 3000 };
        // An unchecked count would ask for gigabytes here and abort the test binary.
        let rejected = torture(&bytes, rounds, |d| {
            let r = Cmdl::parse(d, "t");
            match &r {
                Err(e) => {
                    assert!(!e.field.is_empty());
                    assert!(e.offset <= d.len() as u64, "{e}");
                }
                Ok(c) => {
                    // Whatever parses writes back exactly.
                    assert_eq!(c.to_bytes(), d, "{}", path.display());
                    for (_, e) in c.surface_errors() {
                        assert!(e.field.starts_with("surface["), "{e}");
                        assert!(e.offset < d.len() as u64);
                    }
                    // And every index in the meshes is inside its array.
                    let counts = c.array_counts();
                    for s in &c.surfaces {
                        for v in &s.mesh.vertices {
                            assert!((v.position as usize) < counts.positions);
                            assert!(v.normal.is_none_or(|n| (n as usize) < counts.normals));
                        }
                        let n = s.mesh.vertices.len() as u32;
                        assert!(s.mesh.triangles.iter().flatten().all(|&i| i < n));
                    }
                }
            }
            r
        });
        assert_eq!(
            rejected,
            bytes.len(),
            "every truncation of {} is rejected",
            path.display()
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Building from scratch

fn demo_materials(b: &mut CmdlBuilder) -> Vec<(u32, gx::Material)> {
    let t0 = b.add_texture(0x1000_0001);
    let t1 = b.add_texture(0x1000_0002);
    let built = [
        MaterialBuilder::textured_lit(t0).build(),
        MaterialBuilder::textured_lit(t1)
            .konst(0, [255, 128, 0, 255])
            .alpha_blended()
            .uv_animation(gx::UvAnimation::Rotation {
                offset: 0.5,
                speed: 1.5,
            })
            .build(),
        MaterialBuilder::lit_color()
            .punchthrough()
            .flags(gx::flags::SHORT_UV)
            .build(),
        MaterialBuilder::lit_color().additive().color0(None).build(),
    ];
    built
        .into_iter()
        .map(|m| {
            let g = m.to_gx().unwrap();
            (b.add_material(m), g)
        })
        .collect()
}

#[test]
fn from_scratch_model_parses_back_to_the_same_data() {
    let mut b = CmdlBuilder::new(Game::Mp1);
    b.short_normals = true;
    let mats = demo_materials(&mut b);
    // A textured quad.
    let quad = [[-1.0f32, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]].map(|[x, y]| {
        MeshVertex::new([x, y, 0.0])
            .normal([0.0, 0.0, 1.0])
            .uv(0, [(x + 1.0) / 2.0, (y + 1.0) / 2.0])
    });
    b.add_mesh(mats[0].0, &quad, &[[0, 1, 2], [0, 2, 3]])
        .unwrap();
    // The same quad, raised, with the second material.
    let raised = quad.map(|mut v| {
        v.position[2] = 1.0;
        v
    });
    b.add_mesh(mats[1].0, &raised, &[[0, 1, 2], [0, 2, 3]])
        .unwrap();
    // Vertex colours + short UVs (material 2 has the short-UV flag) drawn as a strip and a fan.
    let colored: Vec<MeshVertex> = (0..5)
        .map(|i| {
            MeshVertex::new([i as f32, 2.0, 0.5])
                .normal([0.0, 1.0, 0.0])
                .color([i * 50, 255 - i * 50, 7, 255])
                .uv(0, [i as f32 * 0.25, 1.5])
        })
        .collect();
    let s = b.add_mesh(mats[2].0, &colored, &[[0, 1, 2]]).unwrap();
    b.surfaces[s]
        .primitives
        .push((PrimitiveKind::TriangleStrip, vec![0, 1, 2, 3, 4]));
    b.surfaces[s]
        .primitives
        .push((PrimitiveKind::TriangleFan, vec![4, 3, 2, 1]));
    // Lines only, position only.
    let p0 = b.add_position([0.0, 0.0, 0.0]).unwrap();
    let p1 = b.add_position([0.0, 0.0, 3.0]).unwrap();
    b.add_surface(SurfaceDesc {
        material_index: mats[3].0,
        vertices: vec![VertexRef::position(p0), VertexRef::position(p1)],
        lines: vec![[0, 1]],
        ..Default::default()
    });
    b.surface_aabbs = true;
    b.alternate_texture_sets
        .push(vec![0x2000_0001, 0x2000_0002]);

    let bytes = b.build_bytes().unwrap();
    let cmdl = Cmdl::parse(&bytes, "built").unwrap();
    assert!(cmdl.warnings.is_empty(), "{:?}", cmdl.warnings);
    assert_eq!(cmdl.to_bytes(), bytes);
    assert_eq!(cmdl.version, 2);
    assert_eq!(cmdl.flags, 0x6);
    assert!(matches!(cmdl.normals, Normals::Short(_)));
    // Every section is a multiple of 32 and the table agrees with the sizes.
    for s in cmdl.data_sections() {
        assert_eq!(s.size % 32, 0, "{}", s.name);
        assert_eq!(s.offset % 32, 0, "{}", s.name);
    }
    assert_eq!(cmdl.material_sets.len(), 2);
    assert_eq!(
        cmdl.material_sets[1].texture_ids,
        vec![0x2000_0001, 0x2000_0002]
    );
    assert_eq!(
        cmdl.material_sets[1].materials,
        cmdl.material_sets[0].materials
    );
    // Materials come back as the gx values they were built from.
    for (i, (_, g)) in mats.iter().enumerate() {
        let back = cmdl.material_sets[0].materials[i].to_gx().unwrap();
        assert_eq!(&back, g, "material {i}");
    }
    assert_eq!(
        cmdl.material_sets[0].materials[0].vertex_attributes,
        VertexAttributes(0x30F)
    );
    assert_eq!(
        cmdl.material_sets[0].materials[3].vertex_attributes,
        VertexAttributes(0x3)
    );
    // Surface 0: triangles, float UVs, positions through the indices.
    let s0 = &cmdl.surfaces[0];
    assert_eq!(s0.mesh.triangles.len(), 2);
    let tri_pos: Vec<[[f32; 3]; 3]> = s0
        .mesh
        .triangles
        .iter()
        .map(|t| t.map(|i| cmdl.positions.values[s0.mesh.vertices[i as usize].position as usize]))
        .collect();
    assert_eq!(
        tri_pos[1],
        [[-1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]]
    );
    let resolved = cmdl.resolved_vertices(s0);
    for (k, v) in s0.mesh.vertices.iter().enumerate() {
        assert_eq!(resolved[k].position, quad[k].position);
        assert_eq!(resolved[k].normal, quad[k].normal);
        assert_eq!(resolved[k].tex[0], quad[k].uvs[0]);
        assert_eq!(resolved[k].tex[1], None);
        assert_eq!(cmdl.tex_coord(s0, v, 0).unwrap(), quad[k].uvs[0].unwrap());
        assert_eq!(
            cmdl.normal(v.normal.unwrap() as usize).unwrap(),
            [0.0, 0.0, 1.0]
        );
    }
    assert_eq!(s0.stored_aabb().unwrap().max, [1.0, 1.0, 0.0]);
    assert_eq!(s0.center, [0.0, 0.0, 0.0]);
    assert_eq!(s0.normal, [0.0, 0.0, 1.0]);
    assert!(s0.normal_hint());
    // Surface 2: short UVs for TEX0 (VAT 2), colours, strip and fan winding.
    let s2 = &cmdl.surfaces[2];
    assert_eq!(s2.mesh.layout.tex0_source, UvSource::Short);
    assert!(s2.mesh.primitives.iter().all(|p| p.vertex_format == 2));
    assert_eq!(s2.mesh.triangles.len(), 1 + 3 + 2);
    let tp = s2.mesh.triangle_positions();
    let pos_of = |k: usize| {
        let v = s2.mesh.vertices[k];
        v.position
    };
    let p: Vec<u16> = (0..5).map(pos_of).collect();
    assert_eq!(tp[1], [p[0], p[1], p[2]]);
    assert_eq!(tp[2], [p[2], p[1], p[3]]);
    assert_eq!(tp[4], [p[4], p[3], p[2]]);
    for (k, v) in s2.mesh.vertices.iter().enumerate() {
        assert_eq!(
            cmdl.tex_coord(s2, v, 0).unwrap(),
            colored[k].uvs[0].unwrap()
        );
        let c = cmdl.colors.values[v.colors[0].unwrap() as usize];
        assert_eq!(c, colored[k].color.unwrap());
    }
    // Surface 3: lines only.
    let s3 = &cmdl.surfaces[3];
    assert!(s3.mesh.triangles.is_empty());
    assert_eq!(s3.mesh.lines.len(), 1);
    // Model AABB covers every referenced position.
    assert_eq!(cmdl.aabb.min, [-1.0, -1.0, 0.0]);
    assert_eq!(cmdl.aabb.max, [4.0, 2.0, 3.0]);
    // And the builder's own parse agrees.
    assert_eq!(b.build().unwrap(), cmdl.clone());
}

#[test]
fn mp2_models_with_matrix_indices_round_trip() {
    let mut b = CmdlBuilder::new(Game::Mp2);
    let t = b.add_texture(0xABCD_0001);
    let mut mat = MaterialBuilder::textured_lit(t)
        .uv_animation(gx::UvAnimation::Srt {
            transform_type: 1,
            scale_s: 1.0,
            scale_t: 2.0,
            rotation: 0.0,
            rotation_speed: 0.5,
            translate_s: 0.0,
            translate_t: 0.0,
            translate_s_speed: 0.25,
            translate_t_speed: 0.0,
        })
        .build();
    mat.mp2_unknown = Some([0x1234, 0x5678]);
    let m = b.add_material(mat);
    let verts: Vec<VertexRef> = (0..3u16)
        .map(|i| {
            let mut v = VertexRef::position(b.add_position([i as f32, 0.0, 0.0]).unwrap());
            v.normal = Some(b.add_normal([0.0, 0.0, 1.0]).unwrap());
            v.tex[0] = Some(b.add_uv([0.5, 0.5]).unwrap());
            v.matrix_indices[0] = Some(3 * i as u8);
            v
        })
        .collect();
    b.add_surface(SurfaceDesc {
        material_index: m,
        vertices: verts.clone(),
        triangles: vec![[0, 1, 2]],
        ..Default::default()
    });
    let cmdl = b.build().unwrap();
    assert!(cmdl.warnings.is_empty(), "{:?}", cmdl.warnings);
    assert_eq!((cmdl.version, cmdl.game()), (4, Game::Mp2));
    let mat = &cmdl.material_sets[0].materials[0];
    assert_eq!(mat.mp2_unknown, Some([0x1234, 0x5678]));
    assert!(mat.vertex_attributes.matrix_index(0));
    assert!(matches!(
        mat.to_gx().unwrap().uv_animations[0],
        gx::UvAnimation::Srt {
            transform_type: 1,
            ..
        }
    ));
    let s = &cmdl.surfaces[0];
    assert_eq!(s.mp2_unknown, Some([0, 0]));
    assert_eq!(s.display_list_start(), 0x40);
    assert_eq!(s.mesh.vertices, verts);
    assert_eq!(cmdl.to_bytes(), b.build_bytes().unwrap());
    // Echoes demo (version 3) uses the MP2 layouts.
    let mut demo = cmdl.to_bytes();
    demo[7] = 3;
    let d = Cmdl::parse(&demo, "demo").unwrap();
    assert_eq!(d.game(), Game::Mp2);
    assert_eq!(d.surfaces[0].mesh.vertices, verts);
    // The same data in an MP1 model is refused by the builder.
    let mut b1 = CmdlBuilder::new(Game::Mp1);
    b1.positions = b.positions.clone();
    b1.normals = b.normals.clone();
    b1.uvs = b.uvs.clone();
    b1.add_material(MaterialBuilder::textured_lit(0).build());
    b1.add_texture(1);
    b1.add_surface(b.surfaces[0].clone());
    assert!(b1.build().is_err());
}

#[test]
fn builder_rejects_inconsistent_input() {
    let mut b = CmdlBuilder::new(Game::Mp1);
    let m = b.add_material(MaterialBuilder::lit_color().build());
    b.add_position([0.0; 3]).unwrap();
    // Index out of range.
    b.add_surface(SurfaceDesc {
        material_index: m,
        vertices: vec![VertexRef::position(5)],
        points: vec![0],
        ..Default::default()
    });
    assert!(
        b.build()
            .unwrap_err()
            .to_string()
            .contains("position index 5")
    );
    // Mixed attributes within one material.
    b.surfaces[0].vertices = vec![VertexRef::position(0), {
        let mut v = VertexRef::position(0);
        v.normal = Some(0);
        v
    }];
    b.normals.push([0.0, 0.0, 1.0]);
    assert!(b.build().is_err());
    // Short UVs outside 0..2.
    let mut b = CmdlBuilder::new(Game::Mp1);
    b.add_short_uv([2.5, 0.0]).unwrap();
    assert!(b.build().is_err());
    // Unknown material.
    let mut b = CmdlBuilder::new(Game::Mp1);
    assert!(b.add_mesh(0, &[], &[]).is_err());
}

#[test]
fn material_from_gx_is_the_inverse_of_to_gx_for_the_fixtures() {
    let Some((bytes, _)) = conformance_file("0x7EC00000.CMDL") else {
        return;
    };
    let cmdl = Cmdl::parse(&bytes, "quad").unwrap();
    for m in &cmdl.material_sets[0].materials {
        let g = m.to_gx().unwrap();
        let mut again = Material::from_gx(&g, m.texture_indices.clone(), m.vertex_attributes);
        again.group_index = m.group_index;
        assert_eq!(again.to_gx().unwrap(), g);
        // Words carry no unknown bits in these fixtures, so the encoding is identical too.
        assert_eq!(again.to_bytes(Game::Mp1), m.to_bytes(Game::Mp1));
    }
}
