//! Command-line interface (thin: parsing and dispatch; the work lives in the library).
//!
//! `anyhow` lives here and in the per-area CLI files; every error is reported once, in
//! [`main`].

pub mod anim;
pub mod area;
pub mod args;
pub mod cmdl;
pub mod edit;
pub mod export;
pub mod pak_txtr;
pub mod render;
pub mod tev;
pub mod vertex;
pub mod worlds;

use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use clap::Parser as _;

use crate::dff::check;
use crate::formats::{Game, fourcc_string};
use crate::gx::wgsl::stage_view::StageView;
use crate::load::{Mp3Alts, source};
use crate::render::{RenderContext, Scene};
use crate::schema::dolphin::DolphinReport;
use crate::views::bake::BakeFlags;
use crate::views::compare::{CompareRequest, Sides};
use args::{Cli, Command, GameArg, RenderArgs, ShaderPath};

/// Entry point of the `tevscope` binary.
pub fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal=off"),
    )
    .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn game(g: Option<GameArg>) -> Option<Game> {
    g.map(|g| match g {
        GameArg::Mp1 => Game::Mp1,
        GameArg::Mp2 => Game::Mp2,
        GameArg::Mp3 => Game::Mp3,
    })
}

/// Runs one parsed command line, printing its output.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let Some(command) = cli.command else {
        return view(args::ViewArgs {
            file: None,
            model: None,
            script: None,
            screenshot_window: None,
            size: None,
            step_timeout: 120.0,
            fps: false,
        });
    };
    let out = match command {
        Command::Info {
            file,
            json,
            game: g,
            mp3_alt,
        } => info_with(&file, json, game(g), &mp3_alts(&mp3_alt)?)?,
        Command::Texture {
            file,
            output,
            mip,
            all_mips,
        } => pak_txtr::texture(&file, &output, mip as u32, all_mips)?,
        Command::Extract { file, output, png } => {
            crate::export::extract_to_folder(&file, &output, png)?
        }
        Command::Export {
            file,
            output,
            anim,
            set,
            time,
            model,
            skin,
            skeleton,
            texture_dir,
            json: _,
            game: g,
            frame,
        } if output
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("dff")) =>
        {
            let mut req = render::RenderRequest::new(file, "");
            (req.width, req.height) = args::parse_size(&frame.size)?;
            req.camera = args::parse_camera(frame.camera.as_deref())?;
            (req.lights, req.time, req.anim) = (frame.lights, time.unwrap_or(0.0), anim);
            (req.model, req.skin, req.skeleton) = (model, skin, skeleton);
            (req.texture_dirs, req.material_set, req.game) = (texture_dir, set, game(g));
            let (ctx, mut scene, label) = dff_scene(&req)?;
            let size = (req.width, req.height);
            let (_, bytes) = check::frame_dff(&mut scene, &ctx, size, frame.readback)?;
            check::write(&output, &bytes)?;
            let n = bytes.len();
            format!("{label}: wrote {} ({n} bytes)", output.display())
        }
        Command::Export {
            file,
            output,
            anim,
            set,
            time,
            model,
            skin,
            skeleton,
            texture_dir,
            json,
            game: g,
            frame,
        } => export::export(
            &export::ExportRequest {
                file: &file,
                output: &output,
                anim: anim.as_deref(),
                set,
                time,
                model: model.as_deref(),
                skin: skin.as_deref(),
                skeleton: skeleton.as_deref(),
                texture_dirs: texture_dir,
                game: game(g),
                bake: frame.bake.then_some(BakeFlags {
                    size: frame.bake_size,
                    lights: frame.lights,
                    camera: args::parse_camera(frame.camera.as_deref())?,
                }),
            },
            json,
        )
        .map_err(with_part_flag)?,
        Command::Pose {
            anim,
            skeleton,
            time,
            json,
            game: g,
        } => {
            let (anim_res, _) = source::open(&anim)?;
            let (cinf_res, _) = source::open(&skeleton)?;
            let g = game(g).or(anim_res.game).or(cinf_res.game);
            anim::pose_with(
                &anim_res.bytes,
                &cinf_res.bytes,
                time,
                g,
                &Default::default(),
                json,
            )?
        }
        Command::Wgsl {
            file,
            material,
            set,
            uber,
        } => {
            let model = crate::load::open_cmdl(&file)?;
            tev::wgsl(&model.material(set, material)?, uber)?
        }
        Command::Uvanim {
            file,
            material,
            set,
            time,
            model,
            view,
            json: _,
        } => {
            let m = crate::load::open_cmdl(&file)?.material(set, material)?;
            let model = model.as_deref().map(vertex::parse_matrix).transpose()?;
            let view = view.as_deref().map(vertex::parse_matrix).transpose()?;
            vertex::uvanim(&m, f64::from(time), model, view)?
        }
        Command::Render(args) => render(&args)?,
        Command::Dolphin { render, dff, json } => {
            let req = scene_request(&render)?;
            let (ctx, mut scene, label) = dff_scene(&req)?;
            let size = (req.width, req.height);
            let (diff, w) = (Some(render.output.as_path()), scene.warnings.clone());
            let r = check::check(&mut scene, &ctx, size, label, w, diff, dff.as_deref())?;
            crate::schema::json_or_text(&r, json, DolphinReport::text)?
        }
        Command::Bench {
            file,
            size,
            frames,
            lights,
            shader,
            exact_blend,
            json,
        } => {
            let file = file.unwrap_or_else(|| crate::load::builtin::demo_spec("showcase"));
            let mut request = render::RenderRequest::new(file, "");
            request.lights = lights;
            (request.width, request.height) = args::parse_size(&size)?;
            request.shader = shader.into();
            request.exact_blend = exact_blend;
            render::bench(&request, frames, json)?
        }
        Command::Edit {
            file,
            patch,
            output,
            in_place,
        } => edit::edit(&file, &patch, output.as_deref(), in_place)?,
        Command::Worlds { source, lang, json } => worlds::worlds(&source, lang.as_deref(), json)?,
        Command::View(args) => return view(args),
    };
    print!("{out}");
    if !out.ends_with('\n') {
        println!();
    }
    Ok(())
}

/// The viewer on `file`, or on the built-in demo (`builtin:demo.pak`); with a script (or
/// `--screenshot-window`), a scripted window that exits when done.
fn view(args: args::ViewArgs) -> anyhow::Result<()> {
    use crate::ui::script::{Action, parse};
    // A script opens what it names (no demo unless FILE is given); a plain window, and a
    // screenshot of one, show the demo as the README says.
    let mut options = if args.script.is_some() {
        crate::ui::ViewerOptions {
            file: args.file,
            ..Default::default()
        }
    } else {
        crate::ui::ViewerOptions::with_file_or_demo(args.file)
    };
    options.references.model = args.model.unwrap_or_default();
    options.fps = args.fps;
    if let Some(size) = &args.size {
        (options.width, options.height) = args::parse_size(size)?;
        options.size_given = true;
    }
    if !(args.step_timeout > 0.0 && args.step_timeout.is_finite()) {
        bail!("--step-timeout must be a positive number of seconds");
    }
    options.step_timeout = std::time::Duration::from_secs_f64(args.step_timeout);
    let mut steps = match &args.script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the script {}", path.display()))?;
            Some(parse(&text).map_err(|e| anyhow::anyhow!("script {}: {e}", path.display()))?)
        }
        None => None,
    };
    if let Some(out) = args.screenshot_window {
        let steps = steps.get_or_insert_with(Vec::new);
        steps.push(Action::WaitIdle {});
        steps.push(Action::ScreenshotWindow { path: out });
    }
    let scripted = steps.is_some();
    options.script = steps;
    let result = crate::ui::run(options);
    if scripted {
        return result;
    }
    result.context(
        "starting the viewer (it needs a display and a GPU adapter; the other commands need neither)",
    )
}

/// `tevscope info FILE [--json]`.
pub fn info(spec: &str, json: bool, game: Option<Game>) -> anyhow::Result<String> {
    info_with(spec, json, game, &Mp3Alts::default())
}

/// The Alts `--mp3-alt` names (clap checked each name).
fn mp3_alts(names: &[String]) -> anyhow::Result<Mp3Alts> {
    Mp3Alts::from_names(names).map_err(|e| anyhow::anyhow!("--mp3-alt: {e}"))
}

/// [`info`] with MP3 Alts: an MP3 CMDL's `gx` programs are synthesised with them.
pub fn info_with(spec: &str, json: bool, game: Option<Game>, alts: &Mp3Alts) -> Result<String> {
    if let Some(text) = crate::load::disc::info(std::path::Path::new(spec), json)? {
        return Ok(text);
    }
    let (res, _) = source::open(spec)?;
    // A 64-bit asset ID (in the file name or PAK) means MP3, whose CINF layout is MP2's.
    let g = game.or(res.game).or(res.wide_ids().then_some(Game::Mp3));
    let (bytes, label) = (&res.bytes[..], res.label.as_str());
    match &res.type_code()? {
        b"PAK " => pak_txtr::info_pak(&res, json),
        b"TXTR" => pak_txtr::info_txtr(&res, json),
        b"CMDL" => cmdl::info_cmdl_with(bytes, label, json, &Default::default(), &alts.synthesis),
        b"CINF" => anim::info_cinf(bytes, label, g, json),
        b"CSKR" => anim::info_cskr(bytes, label, g, json),
        b"ANIM" => anim::info_anim(bytes, label, g, json),
        b"ANCS" => anim::info_ancs(bytes, label, g, json),
        b"CHAR" => anim::info_char(bytes, label, json),
        b"MREA" => vertex::info_mrea(bytes, label, json),
        b"MLVL" => worlds::info_mlvl(&res, json),
        b"STRG" => worlds::info_strg(&res, json),
        other => bail!(
            "{label}: `info` does not read {} files",
            fourcc_string(*other)
        ),
    }
}

/// A character's part not found: the message with the flag that gives it (the library
/// names no flags).
fn with_part_flag(e: anyhow::Error) -> anyhow::Error {
    use crate::load::{MissingPart, Part};
    let flag = MissingPart::find(&e).map(|m| match m.part {
        Part::Model => "--model",
        Part::Skin => "--skin",
        Part::Skeleton => "--skeleton",
    });
    match flag {
        Some(flag) => anyhow::anyhow!("{e:#}; name one with {flag}"),
        None => e,
    }
}

/// The scene `render` would draw for `req`, for a DFF.
fn dff_scene(req: &render::RenderRequest) -> anyhow::Result<(RenderContext, Scene, String)> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let (scene, label, _, _) = render::build_scene(&ctx, req).map_err(with_part_flag)?;
    Ok((ctx, scene, label))
}

/// `render`'s request for a whole model.
fn render_request(args: &RenderArgs) -> anyhow::Result<render::RenderRequest> {
    let (width, height) = args::parse_size(&args.size)?;
    let stages = crate::gx::tev::MAX_STAGES;
    if let Some(k) = args.stage.filter(|&k| k as usize >= stages) {
        bail!("--stage {k}: GX has 16 TEV stages, 0..15");
    }
    Ok(render::RenderRequest {
        width,
        height,
        time: args.time,
        anim: args.anim.clone(),
        model: args.model.clone(),
        skin: args.skin.clone(),
        skeleton: args.skeleton.clone(),
        texture_dirs: args.texture_dir.clone(),
        lights: args.lights.clone(),
        camera: args::parse_camera(args.camera.as_deref())?,
        transparent: args.transparent,
        material_set: args.set,
        game: game(args.game),
        shader: args.shader.into(),
        exact_blend: args.exact_blend,
        mp3_alts: mp3_alts(&args.mp3_alt)?,
        debug: debug_view(args)?,
        stage_view: args.stage.map(|stage| StageView {
            material: args.material,
            stage,
        }),
        ..render::RenderRequest::new(args.file.clone(), args.output.clone())
    })
}

/// `render --debug VIEW`, checked against the shader path.
fn debug_view(args: &RenderArgs) -> anyhow::Result<Option<crate::gx::wgsl::debug::DebugView>> {
    use crate::gx::wgsl::debug::DebugView;
    let Some(name) = &args.debug else {
        return Ok(None);
    };
    let Some(view) = DebugView::parse(name) else {
        let names: Vec<String> = DebugView::all().iter().map(|v| v.name()).collect();
        bail!("--debug {name}: unknown view; one of {}", names.join(", "));
    };
    if args.shader == ShaderPath::Uber {
        bail!("--debug draws with specialized shaders; drop `--shader uber`");
    }
    Ok(Some(view))
}

/// `render --compare MODE [--split F] [--patch FILE]`: the scenes are built here, the work
/// is [`crate::views::compare`]'s.
fn compare(args: &RenderArgs, mode: &str, req: &render::RenderRequest) -> anyhow::Result<String> {
    let read = |p: &String| anyhow::Ok((p.clone(), edit::read_patch(p)?));
    let patch = args.patch.as_ref().map(read);
    let compare = CompareRequest::new(mode, args.split, patch.transpose()?)?;
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let (a, label, ..) = render::build_scene(&ctx, req)?;
    let (b, ..) = render::build_scene(&ctx, req)?;
    let shown = req.preview.map(|_| req.material);
    let sides = Sides::new(&req.file, &label, [a, b], req.material_set, shown);
    let image = (req.width, req.height, req.transparent);
    crate::views::compare::render_compare(&ctx, sides, image, &compare, &req.output)
}

/// What a scene draws for `render`'s arguments: the whole model, or one material on a
/// shape (`--preview sphere|cube|plane|torus --material N`); None for `--preview quad`,
/// which is no scene.
fn scene_request_or_quad(args: &RenderArgs) -> anyhow::Result<Option<render::RenderRequest>> {
    let Some(preview) = args.preview else {
        if args.material.is_some() && args.stage.is_none() {
            bail!(
                "--material selects what --preview shows; add `--preview quad` (or sphere, cube, plane, torus)"
            );
        }
        return render_request(args).map(Some);
    };
    let Some(shape) = preview.shape() else {
        return Ok(None);
    };
    Ok(Some(render::RenderRequest {
        preview: Some(shape),
        material: args.material.unwrap_or(0),
        // The preview's model holds the chosen material alone, as material 0.
        stage_view: args.stage.map(|stage| StageView {
            material: None,
            stage,
        }),
        ..render_request(args)?
    }))
}

/// [`scene_request_or_quad`] for commands that need a scene (`dolphin`).
fn scene_request(args: &RenderArgs) -> anyhow::Result<render::RenderRequest> {
    scene_request_or_quad(args)?.ok_or_else(|| {
        anyhow::anyhow!(
            "--preview quad draws no scene; use --preview plane (or sphere, cube, torus) for a material alone"
        )
    })
}

/// `tevscope render …`.
fn render(args: &RenderArgs) -> anyhow::Result<String> {
    let (width, height) = args::parse_size(&args.size)?;
    if let Some(world) = &args.overview {
        let bg = [18, 18, 18, 255].map(|c| if args.transparent { 0 } else { c });
        let size = (width, height);
        return render::render_world_overview(&args.file, world, &args.output, size, bg);
    }
    if let Some(mode) = &args.compare {
        return compare(args, mode, &scene_request(args)?).map_err(with_part_flag);
    }
    if args.patch.is_some() {
        bail!("--patch makes the B side of --compare; add `--compare side` (or split, diff)");
    }
    if let Some(request) = scene_request_or_quad(args)? {
        return render::render_model(&request).map_err(with_part_flag);
    }
    if args.model.is_some() || args.skin.is_some() || args.skeleton.is_some() {
        bail!("--model, --skin and --skeleton are for whole models, not --preview quad");
    }
    if args.debug.is_some() || args.stage.is_some() {
        bail!("--debug and --stage draw whole models and shape previews, not --preview quad");
    }
    let model = crate::load::open_cmdl(&args.file)?;
    let index = args.material.unwrap_or(0);
    let material = model.material(args.set, index)?;
    let textures = model.textures(args.set, index)?;
    let uber = args.shader == ShaderPath::Uber;
    let image = tev::render_quad(&material, &textures, width, height, uber)?;
    image.save_png(&args.output)?;
    Ok(format!(
        "wrote {} ({width}x{height}, material {index}, {} shader)",
        args.output.display(),
        if uber { "uber" } else { "specialized" }
    ))
}
