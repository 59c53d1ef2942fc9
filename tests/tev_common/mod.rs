//! Shared by the TEV integration tests: conformance cases → materials, and a batched
//! GPU harness that draws many programs into tiles of one target.
#![allow(dead_code)]

use serde_json::Value;
use tevscope::gx::tev::{PixelInputs, TevOptions, TevProgram, evaluate};
use tevscope::gx::types::*;
use tevscope::model::TextureData;
use tevscope::render::context::RenderContext;
use tevscope::render::material::{BoundTexture, GpuMaterial};
use tevscope::render::quad::{QuadGeometry, QuadRenderer, ShaderPath, quad_pipeline, quad_uv};
use tevscope::render::target::{OffscreenTarget, RgbaImage};
use tevscope::render::texture::{GpuTexture, SamplerMode, Wrap};

/// One conformance case as a material plus what it must produce.
pub struct Case {
    pub index: usize,
    pub material: Material,
    /// RGBA per material texture slot.
    pub slot_rgba: Vec<[u8; 4]>,
    pub expected: [u8; 4],
    pub expected_sw_quirk: [u8; 4],
    /// Per stage: PREV, C0, C1, C2, each component None = not yet written.
    pub trace: Vec<[[Option<i16>; 4]; 4]>,
    /// Per stage: the colour and alpha formula texts.
    pub texts: Vec<[String; 2]>,
}

fn u32_of(v: &Value) -> u32 {
    v.as_u64().expect("integer") as u32
}

fn rgba_of(v: &Value) -> [u8; 4] {
    let a = v.as_array().expect("rgba array");
    std::array::from_fn(|i| a[i].as_u64().expect("u8") as u8)
}

/// Texgen 0 of every case: MTX2x4 from TEX0, identity matrix, identity post matrix.
pub fn identity_texgen(tex: u8) -> TexGen {
    TexGen {
        kind: TexGenType::Mtx2x4,
        source: TexGenSrc::Tex(tex),
        gx_tex_mtx: GX_IDENTITY,
        normalize: false,
        gx_post_mtx: GX_PTIDENTITY,
    }
}

pub fn base_material(stages: Vec<TevStage>, texture_count: usize, texgens: usize) -> Material {
    Material {
        stages,
        texgens: (0..texgens).map(|i| identity_texgen(i as u8)).collect(),
        texture_count,
        konst_count: 4,
        flags: flags::KONST | flags::DEPTH_WRITE,
        ..Material::default()
    }
}

/// The cases of `tev_cases.json`, or None (after a loud message) without fixtures.
pub fn load_cases() -> Option<Vec<Case>> {
    let dir = tevscope::testing::conformance_dir()?;
    let text = std::fs::read_to_string(dir.join("tev_cases.json")).expect("tev_cases.json");
    let json: Value = serde_json::from_str(&text).expect("tev_cases.json parses");
    let textures: Vec<[u8; 4]> = json["textures"]
        .as_array()
        .expect("textures")
        .iter()
        .map(|t| rgba_of(&t["rgba"]))
        .collect();
    let cases = json["cases"].as_array().expect("cases");
    assert_eq!(
        cases.len(),
        json["case_count"].as_u64().expect("count") as usize
    );
    Some(
        cases
            .iter()
            .map(|c| {
                let stages: Vec<TevStage> = c["stages"]
                    .as_array()
                    .expect("stages")
                    .iter()
                    .map(|s| {
                        let w = &s["words"];
                        TevStage::from_words(
                            u32_of(&w["color_input_flags"]),
                            u32_of(&w["alpha_input_flags"]),
                            u32_of(&w["color_combine_flags"]),
                            u32_of(&w["alpha_combine_flags"]),
                            u32_of(&w["konst_alpha_input"]) as u8,
                            u32_of(&w["konst_color_input"]) as u8,
                            u32_of(&w["rasterized_color_input"]) as u8,
                            u32_of(&w["texture_tev_input"]) as u8,
                            u32_of(&w["tex_coord_tev_input"]) as u8,
                        )
                        .expect("valid stage words")
                    })
                    .collect();
                let texts = c["stages"]
                    .as_array()
                    .expect("stages")
                    .iter()
                    .map(|s| {
                        let t = s["text"].as_array().expect("text");
                        [
                            t[0].as_str().expect("str").to_string(),
                            t[1].as_str().expect("str").to_string(),
                        ]
                    })
                    .collect();
                let slot_rgba: Vec<[u8; 4]> = c["texture_indices"]
                    .as_array()
                    .expect("texture_indices")
                    .iter()
                    .map(|i| textures[i.as_u64().expect("index") as usize])
                    .collect();
                let mut material = base_material(stages, slot_rgba.len(), 1);
                let konst = c["konst_colors_rgba"].as_array().expect("konsts");
                for (k, v) in konst.iter().enumerate() {
                    material.konst[k] = rgba_of(v);
                }
                material.konst_count = konst.len();
                let trace = c["register_trace"]
                    .as_array()
                    .expect("trace")
                    .iter()
                    .map(|t| {
                        ["PREV", "C0", "C1", "C2"].map(|r| {
                            let a = t[r].as_array().expect("register");
                            std::array::from_fn(|i| a[i].as_i64().map(|v| v as i16))
                        })
                    })
                    .collect();
                Case {
                    index: c["material_index"].as_u64().expect("index") as usize,
                    material,
                    slot_rgba,
                    expected: rgba_of(&c["expected_rgba"]),
                    expected_sw_quirk: rgba_of(&c["expected_rgba_sw_alpha_quirk"]),
                    trace,
                    texts,
                }
            })
            .collect(),
    )
}

/// One program for the batched harness: material (vertex side and texture count),
/// program, and its textures by map.
pub struct BatchItem {
    pub material: Material,
    pub program: TevProgram,
    pub textures: Vec<Option<TextureData>>,
}

/// Draws every item into its own `tile` × `tile` viewport of one target on `path`, and
/// returns each tile's pixels.
pub fn render_batch(
    ctx: &RenderContext,
    items: &[BatchItem],
    tile: u32,
    geometry: &QuadGeometry,
    draw: &tevscope::gx::wgsl::vertex::DrawUniforms,
    path: ShaderPath,
) -> Vec<RgbaImage> {
    let columns = 16u32;
    let rows = (items.len() as u32).div_ceil(columns).max(1);
    let target = OffscreenTarget::new(ctx, columns * tile, rows * tile).expect("target");
    let quad = QuadRenderer::new(ctx, geometry, draw);
    let nearest = SamplerMode::Nearest { wrap: Wrap::Repeat };
    let gpu: Vec<GpuMaterial> = items
        .iter()
        .map(|item| {
            let bound: Vec<Option<BoundTexture>> = item
                .textures
                .iter()
                .map(|t| {
                    t.as_ref().map(|data| BoundTexture {
                        texture: GpuTexture::upload(&ctx.device, &ctx.queue, data, "test")
                            .expect("upload"),
                        sampler: nearest,
                    })
                })
                .collect();
            GpuMaterial::with_program(
                ctx,
                &item.material,
                item.program.clone(),
                quad.draw_uniforms.as_entire_buffer_binding(),
                &bound,
            )
        })
        .collect();
    let pipelines: Vec<_> = gpu
        .iter()
        .map(|g| quad_pipeline(ctx, g, path).unwrap_or_else(|e| panic!("pipeline: {e}")))
        .collect();
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
    {
        let mut pass = target.begin_pass(&mut encoder, Some(wgpu::Color::TRANSPARENT));
        for (i, (g, p)) in gpu.iter().zip(&pipelines).enumerate() {
            let (x, y) = ((i as u32 % columns) * tile, (i as u32 / columns) * tile);
            pass.set_viewport(x as f32, y as f32, tile as f32, tile as f32, 0.0, 1.0);
            quad.draw(&mut pass, g, p);
        }
    }
    ctx.queue.submit([encoder.finish()]);
    let image = target.read_rgba(ctx).expect("readback");
    (0..items.len() as u32)
        .map(|i| image.crop((i % columns) * tile, (i / columns) * tile, tile, tile))
        .collect()
}

/// The texel of `data` that nearest sampling reads at pixel (x, y) of a tile × tile quad
/// for texture coordinate set `set` (None: coordinate (0, 0)).
pub fn nearest_texel(
    data: &TextureData,
    set: Option<u8>,
    x: u32,
    y: u32,
    tile: u32,
    varied: bool,
) -> [u8; 4] {
    let (u, v) = match set {
        Some(s) => {
            let [u, v] = quad_uv(
                s as usize,
                (x as f32 + 0.5) / tile as f32,
                (y as f32 + 0.5) / tile as f32,
                varied,
            );
            (u, v)
        }
        None => (0.0, 0.0),
    };
    let wrap = |c: f32, n: u32| ((c * n as f32).floor() as i64).rem_euclid(n as i64) as u32;
    data.texel(wrap(u, data.width), wrap(v, data.height))
}

/// The CPU reference's image for `item`: per pixel the written TEV output, or the clear
/// colour (transparent black) where the alpha test fails.
pub fn reference_tile(
    item: &BatchItem,
    tile: u32,
    raster: &RgbaImage,
    raster1: &RgbaImage,
    varied: bool,
) -> RgbaImage {
    let mut pixels = Vec::with_capacity((tile * tile * 4) as usize);
    for y in 0..tile {
        for x in 0..tile {
            let inputs = PixelInputs::sampled(
                &item.program,
                [raster.pixel(x, y), raster1.pixel(x, y)],
                |map, coord| match item.textures.get(map as usize).and_then(|t| t.as_ref()) {
                    Some(t) => nearest_texel(t, coord, x, y, tile, varied),
                    None => [255; 4],
                },
            );
            let t = evaluate(&item.program, &inputs);
            pixels.extend_from_slice(&if t.alpha_pass { t.written } else { [0; 4] });
        }
    }
    RgbaImage {
        width: tile,
        height: tile,
        pixels,
    }
}

/// A one-stage material whose output is raster channel `channel` (colour = RASC,
/// alpha = RASA), to read back what the vertex stage feeds the TEV.
pub fn raster_probe(vertex_side: &Material, channel: u8) -> Material {
    let st = TevStage::from_words(
        TevStage::color_inputs_word([
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Rasc,
        ]),
        TevStage::alpha_inputs_word([
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Rasa,
        ]),
        0x100,
        0x100,
        0,
        0,
        if channel == 0 { 4 } else { 5 },
        0xFF,
        0xFF,
    )
    .expect("probe stage");
    Material {
        stages: vec![st],
        ..vertex_side.clone()
    }
}

pub fn default_program(m: &Material) -> TevProgram {
    TevProgram::from_material(m, &TevOptions::default())
}

/// Describes the first differing pixel of two images, or None when equal.
pub fn first_difference(got: &RgbaImage, want: &RgbaImage) -> Option<String> {
    for y in 0..want.height {
        for x in 0..want.width {
            if got.pixel(x, y) != want.pixel(x, y) {
                return Some(format!(
                    "pixel ({x}, {y}): GPU {:?}, CPU {:?}",
                    got.pixel(x, y),
                    want.pixel(x, y)
                ));
            }
        }
    }
    None
}
