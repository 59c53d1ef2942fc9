//! End to end on the vertex side with the cube fixture's materials (built from the raw
//! words its JSON lists): key → naga-validated WGSL, per-frame uniforms from the UV
//! animations and lights, and the CPU reference on the fixture's vertices.

use glam::{Mat4, Vec3};
use serde_json::Value;
use tevscope::gx::frame::{FrameCamera, FrameOptions, FrameUpdate};
use tevscope::gx::lighting::{channel_final, run_vertices};
use tevscope::gx::lights::{LightPreset, LightSelection};
use tevscope::gx::wgsl::interface::GpuVertex;
use tevscope::gx::wgsl::vertex::{VertexKey, vertex_module};
use tevscope::gx::{ChannelControl, Material, TexGen, UvAnimation};

fn materials(j: &Value) -> Vec<Material> {
    let mut out = Vec::new();
    for set in j["material_sets"].as_array().expect("sets") {
        for m in set["materials"].as_array().expect("materials") {
            let words = |v: &Value| -> Vec<u32> {
                v.as_array()
                    .expect("array")
                    .iter()
                    .map(|x| x.as_u64().expect("word") as u32)
                    .collect()
            };
            let channels = words(&m["color_channel_flags"]);
            let texgens = m["texgens"]
                .as_array()
                .expect("texgens")
                .iter()
                .map(|t| {
                    TexGen::from_word(t["flags"].as_u64().expect("flags") as u32).expect("texgen")
                })
                .collect();
            let uv_animations = m["uv_animations"]
                .as_array()
                .expect("uv")
                .iter()
                .map(|a| {
                    let params: Vec<u32> = a["parameters"]
                        .as_array()
                        .expect("params")
                        .iter()
                        .map(|p| (p.as_f64().expect("param") as f32).to_bits())
                        .collect();
                    UvAnimation::from_words(a["mode"].as_u64().expect("mode") as u32, &params)
                        .expect("known mode")
                })
                .collect();
            out.push(Material {
                texgens,
                texture_count: 1,
                color0: channels.first().map(|&w| ChannelControl::from_word(w)),
                channel_count: channels.len() as u32,
                uv_animations,
                flags: m["flags"].as_u64().expect("flags") as u32,
                ..Material::default()
            });
        }
    }
    out
}

fn vertices(j: &Value) -> Vec<GpuVertex> {
    let v3 = |v: &Value| -> [f32; 3] {
        let a = v.as_array().expect("vec3");
        [0, 1, 2].map(|i| a[i].as_f64().expect("f") as f32)
    };
    let pos = j["positions"].as_array().expect("positions");
    let nrm = j["normals"].as_array().expect("normals");
    let uvs = j["uvs"].as_array().expect("uvs");
    pos.iter()
        .enumerate()
        .map(|(i, p)| {
            let uv = uvs[i % uvs.len()].as_array().expect("uv");
            let mut v = GpuVertex {
                position: v3(p),
                normal: v3(&nrm[i % nrm.len()]),
                ..Default::default()
            };
            v.tex[0] = [0, 1].map(|k| uv[k].as_f64().expect("f") as f32);
            v
        })
        .collect()
}

fn camera() -> FrameCamera {
    FrameCamera {
        view_from_world: glam::camera::rh::view::look_at_mat4(
            Vec3::new(3.0, -4.0, 2.0),
            Vec3::ZERO,
            Vec3::Z,
        ),
        clip_from_view: glam::camera::rh::proj::directx::perspective(1.0, 1.0, 0.1, 100.0),
    }
}

#[test]
fn cube_materials_generate_valid_vertex_stages() {
    let Some((_, j)) = tevscope::testing::conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    let mats = materials(&j);
    assert_eq!(mats.len(), 6);
    for m in &mats {
        let key = VertexKey::for_material(m);
        let src = vertex_module(&key);
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(&src)));
        // COLOR0 lighting code exists exactly when the first channel word enables it.
        let lit = m.channel_count > 0 && m.color0.is_some_and(|c| c.lighting);
        assert_eq!(key.channels[0].lighting, lit);
    }
}

#[test]
fn uv_scroll_and_lighting_reach_the_vertices() {
    let Some((_, j)) = tevscope::testing::conformance_file("mp1_cube_skinned.CMDL") else {
        return;
    };
    let mats = materials(&j);
    let verts = vertices(&j);
    let mut frame = FrameUpdate::new(FrameOptions::default());
    let model = frame.add_model(Mat4::IDENTITY, Vec3::ZERO);
    let ids: Vec<usize> = mats.iter().map(|m| frame.add_material(model, m)).collect();
    let lights = LightPreset::Basic.light_set();
    let t = 901.5; // wraps to 1.5 s
    let changed = frame.update(t, &camera(), &lights).to_vec();
    // Materials with the same vertex-side inputs share one uniform block.
    let mut blocks = ids.clone();
    blocks.sort_unstable();
    blocks.dedup();
    assert_eq!(changed, blocks);

    // Material 0: scroll (0.25, −0.5) + s · (0.125, 2) on TEX0 through TEXMTX0.
    let key = VertexKey::for_material(&mats[0]);
    let u = frame.uniforms(ids[0]).expect("block");
    let out = run_vertices(&key, &u, &verts);
    for (v, r) in verts.iter().zip(&out) {
        let want = [
            v.tex[0][0] + (1.5 * 0.125 + 0.25),
            v.tex[0][1] + (1.5 * 2.0 - 0.5),
        ];
        let got = r.uv(0);
        assert!(
            (got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6,
            "{got:?} vs {want:?}"
        );
        // Channel word 1: lit, REG/REG, diffuse NONE, attenuation SPEC. With a directional
        // light (a = k = (1, 0, 0)) the light adds its full colour: 128 + 255 → 255.
        assert_eq!(&r.color0[..3], &[255, 255, 255]);
        // ALPHA0: vertex alpha (none → 255); COLOR1: count 1 → 0.
        assert_eq!(r.color0[3], 255);
        assert_eq!(&r.color1[..3], &[0, 0, 0]);
    }

    // Material 2: filmstrips on TEXMTX0/1, a NRM env map through TEXMTX2.
    let key = VertexKey::for_material(&mats[2]);
    let u = frame.uniforms(ids[2]).expect("block");
    let out = run_vertices(&key, &u, &verts);
    // Mode 4: v = 0.25·0.25·(8 + 1.5) = 0.59375 → n = trunc(4·0.59375) = 2 → 0.5.
    assert_eq!(u.tex_mtx[0][0][3], 0.5);
    // Mode 5: v = 0.5·0.5·(4 + 1.5) = 1.375 → f = 0.375 → n = trunc(0.75) = 0.
    assert_eq!(u.tex_mtx[1][1][3], 0.0);
    for (v, r) in verts.iter().zip(&out) {
        assert!((r.uv(0)[0] - (v.tex[0][0] + 0.5)).abs() < 1e-6);
        assert_eq!(r.tex_coord_count, 3);
    }

    // With the "game, no lights" preset COLOR0 outputs the (white) ambient unlit.
    let none = LightPreset::GameNoLights.light_set();
    frame.update(t, &camera(), &none);
    let key = VertexKey::for_material(&mats[0]);
    let out = run_vertices(&key, &frame.uniforms(ids[0]).expect("block"), &verts);
    assert!(out.iter().all(|r| r.color0[..3] == [255, 255, 255]));

    // The fixture area's layer 0: ambient (63, 63, 127) + a directional light.
    let Some((area, _)) = tevscope::testing::conformance_file("mp1_lights_minimal.MREA") else {
        return;
    };
    let m = tevscope::formats::mrea::parse_mrea(&area, "area").expect("area");
    let layer =
        tevscope::gx::lights::LightSet::from_layer(&m.light_layers()[0], &Default::default());
    frame.options.light_selection = LightSelection::Brightest(4);
    frame.update(t, &camera(), &layer);
    let out = run_vertices(&key, &frame.uniforms(ids[0]).expect("block"), &verts);
    // Diffuse NONE, attenuation 1: lacc = ambient + (255, 223, 191), clamped.
    let want = [63 + 255, 63 + 223, 127 + 191].map(|l| channel_final(255, l) as u8);
    assert!(
        out.iter().all(|r| r.color0[..3] == want),
        "{:?}",
        out[0].color0
    );
}
