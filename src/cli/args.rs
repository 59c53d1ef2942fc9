//! The command line, as a public interface: names and flags here are stable and
//! documented in the README.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// tevscope: Metroid Prime models drawn exactly as the GameCube's GX chip draws them.
///
/// Files inside a PAK are addressed as `FILE.pak:0x1A2B3C4D` or `FILE.pak:name`.
#[derive(Debug, Parser)]
#[command(name = "tevscope", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GameArg {
    Mp1,
    Mp2,
    Mp3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShaderPath {
    Specialized,
    Uber,
}

impl From<ShaderPath> for crate::render::ShaderPath {
    fn from(p: ShaderPath) -> Self {
        match p {
            ShaderPath::Specialized => Self::Specialized,
            ShaderPath::Uber => Self::Uber,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Preview {
    /// The material on a screen-covering quad (UV 0..1, nearest sampling).
    Quad,
    /// The material on a UV sphere, lit by `--lights`, seen by `--camera`.
    Sphere,
    /// The material on each face of a cube.
    Cube,
    /// The material on a square facing the default camera.
    Plane,
    /// The material on a torus.
    Torus,
}

impl Preview {
    /// The generated shape this preview draws on (None: the screen quad).
    pub fn shape(self) -> Option<crate::model::shapes::PreviewShape> {
        use crate::model::shapes::PreviewShape;
        match self {
            Self::Quad => None,
            Self::Sphere => Some(PreviewShape::Sphere),
            Self::Cube => Some(PreviewShape::Cube),
            Self::Plane => Some(PreviewShape::Plane),
            Self::Torus => Some(PreviewShape::Torus),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Describe a PAK, CMDL, TXTR, CINF, CSKR, ANIM, ANCS, CHAR, MREA, MLVL or STRG file.
    Info {
        file: String,
        /// Machine-readable output (field names as in the conformance JSONs).
        #[arg(long)]
        json: bool,
        /// Game, for formats that carry no version (CINF, CSKR, ANIM).
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// An MP3 Alt of the spec to switch on (see README "MP3 Alts"); may be repeated.
        #[arg(long = "mp3-alt", value_name = "ALT", value_parser = crate::load::mp3_alts::parse_alt_name)]
        mp3_alt: Vec<String>,
    },
    /// List the worlds (named MLVLs) of a disc image, a folder of PAKs or a PAK, rooms by name.
    Worlds {
        source: PathBuf,
        /// Language code for the names (ENGL, GERM, FREN…); default ENGL, else the first.
        #[arg(long)]
        lang: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Decode a TXTR to PNG (or every texture of a CMDL/ANCS into a folder).
    Texture {
        file: String,
        /// The PNG; a folder with --all-mips or for a model.
        #[arg(short, long)]
        output: PathBuf,
        /// Mip level to write (0 = full size).
        #[arg(long, default_value_t = 0, conflicts_with = "all_mips")]
        mip: usize,
        /// Write every mip level into the folder OUTPUT (STEM.png, STEM.mip1.png, …).
        #[arg(long)]
        all_mips: bool,
    },
    /// Extract a PAK's resources (decompressed, by ID and type) or a disc image's files.
    Extract {
        file: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Also decode every TXTR to 0xID.png.
        #[arg(long)]
        png: bool,
    },
    /// Export a CMDL, an ANCS character (skin, skeleton, animations) or an MREA room as glTF 2.0.
    Export {
        /// A CMDL, a `PAK:ID`, or an ANCS character.
        file: String,
        /// OUT.glb, or OUT.gltf (with OUT.bin beside it).
        #[arg(short, long)]
        output: PathBuf,
        /// `all` (the default), an animation name or index of the character, or with
        /// --skin/--skeleton an ANIM file.
        #[arg(long)]
        anim: Option<String>,
        /// Material set (alternate skins).
        #[arg(long, default_value_t = 0)]
        set: usize,
        /// Pose the nodes at this time of the (first) animation instead of the bind pose.
        #[arg(long)]
        time: Option<f32>,
        /// A CMDL (file or `PAK:ID`) instead of the model the character names.
        #[arg(long)]
        model: Option<String>,
        /// A CSKR (file or `PAK:ID`) instead of the one the character names.
        #[arg(long)]
        skin: Option<String>,
        /// A CINF (file or `PAK:ID`) instead of the one the character names.
        #[arg(long)]
        skeleton: Option<String>,
        /// A folder searched for textures before the input's own; may be repeated.
        #[arg(long = "texture-dir")]
        texture_dir: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// With OUT.dff: the frame as `render` draws it (see `tevscope dolphin`).
        #[command(flatten)]
        frame: FrameArgs,
    },
    /// Play `render`'s frame (up to 640x528) in Dolphin's software renderer and compare it
    /// with tevscope's; `-o` gets the difference image (|Δ| × 16).
    Dolphin {
        #[command(flatten)]
        render: RenderArgs,
        /// Also keep the DFF that was played.
        #[arg(long)]
        dff: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Pose a skeleton with an animation at a time.
    Pose {
        anim: String,
        #[arg(long)]
        skeleton: String,
        #[arg(long, default_value_t = 0.0)]
        time: f32,
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum)]
        game: Option<GameArg>,
    },
    /// Print the generated WGSL of a material.
    Wgsl {
        file: String,
        #[arg(long, default_value_t = 0)]
        material: usize,
        /// Material set (alternate skins).
        #[arg(long, default_value_t = 0)]
        set: usize,
        /// The ubershader instead of the specialized shader.
        #[arg(long)]
        uber: bool,
    },
    /// Evaluate a material's UV animations at a time.
    Uvanim {
        file: String,
        #[arg(long, default_value_t = 0)]
        material: usize,
        #[arg(long, default_value_t = 0)]
        set: usize,
        #[arg(long, default_value_t = 0.0)]
        time: f32,
        /// world_from_model, 16 comma-separated numbers, row-major.
        #[arg(long)]
        model: Option<String>,
        /// Prime's view matrix (camera → world), 16 comma-separated numbers, row-major.
        #[arg(long)]
        view: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Render a model (or one material on a quad) offscreen to PNG.
    Render(RenderArgs),
    /// Render frames offscreen and report CPU frame and uniform update times, GPU frame time
    /// and FPS.
    Bench {
        file: Option<String>,
        #[arg(long, default_value = "1280x720")]
        size: String,
        #[arg(long, default_value_t = 300)]
        frames: u32,
        /// Lights, as for `render --lights`.
        #[arg(long)]
        lights: Option<String>,
        /// Time the specialized pipelines or the ubershader.
        #[arg(long, value_enum, default_value = "specialized")]
        shader: ShaderPath,
        /// Blend in the shader with GX's integer rule (exact) instead of host blending.
        #[arg(long)]
        exact_blend: bool,
        #[arg(long)]
        json: bool,
    },
    /// Apply a JSON Patch (RFC 6902) over the `info --json` document to a CMDL's materials.
    Edit {
        /// A CMDL, or a model inside a PAK (`FILE.pak:0xID` or `FILE.pak:name`).
        file: String,
        /// The patch file (`-` reads standard input).
        #[arg(long)]
        patch: String,
        /// Where to write the result (the CMDL, or the whole PAK for a PAK member).
        #[arg(short, long, conflicts_with = "in_place")]
        output: Option<PathBuf>,
        /// Overwrite the input file (the PAK for a PAK member).
        #[arg(long)]
        in_place: bool,
    },
    /// Open the viewer (the built-in demo when no file is given).
    View(ViewArgs),
}

#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// A CMDL, ANCS, TXTR, MREA, PAK or `PAK:ID` to open.
    pub file: Option<String>,
    /// A CMDL (file or `PAK:ID`) instead of the model the character FILE names (the
    /// References' Model field).
    #[arg(long, requires = "file")]
    pub model: Option<String>,
    /// Run these UI actions (a JSON array, see README) in the window, then exit; any
    /// failing step exits non-zero naming the step.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Once the script (or opening FILE) is done and the window idle, save the whole
    /// window as a PNG and exit.
    #[arg(long = "screenshot-window")]
    pub screenshot_window: Option<PathBuf>,
    /// Window size WxH (logical pixels) instead of the remembered one.
    #[arg(long)]
    pub size: Option<String>,
    /// Seconds one script step may take before the run fails.
    #[arg(long = "step-timeout", default_value_t = 120.0)]
    pub step_timeout: f64,
    /// Show the frame-rate overlay (frames per second and frame time over the last
    /// second) over the 3D view; View → Frame rate toggles it.
    #[arg(long)]
    pub fps: bool,
}

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// A CMDL, a `PAK:ID`, or an ANCS character.
    pub file: String,
    #[arg(short, long)]
    pub output: PathBuf,
    #[arg(long, default_value = "512x512")]
    pub size: String,
    /// Material index (with --preview, or the material --stage shows).
    #[arg(long)]
    pub material: Option<usize>,
    /// Draw the output of TEV stage K (0-based; the colour and alpha registers it writes,
    /// clamped 0..255): of material --material only (the others as usual), or of every
    /// material (those with fewer stages show their last).
    #[arg(long, value_name = "K")]
    pub stage: Option<u8>,
    #[arg(long, default_value_t = 0)]
    pub set: usize,
    #[arg(long, value_enum)]
    pub preview: Option<Preview>,
    /// Draw world WORLD of the source (a disc image, folder or PAK; WORLD is its index in
    /// `tevscope worlds`, its MLVL ID or its name) from above, every room's geometry.
    #[arg(long, value_name = "WORLD")]
    pub overview: Option<String>,
    /// A debug view instead of the shaded pixels: normals (view space), uv0…uv7 (texgen
    /// output as a checker), alpha, raster (lit channel 0), lighting (white textures),
    /// depth (eye distance as grey), wireframe (edges over the shaded model), overdraw
    /// (fragments per pixel).
    #[arg(long)]
    pub debug: Option<String>,
    /// A/B compare: the model as opened (A) and with --patch applied in memory (B), drawn
    /// alike: side (A | B), split (A left of --split, B right), diff (|A − B| × 8).
    #[arg(long)]
    pub compare: Option<String>,
    /// Where --compare split shows B from (fraction of the width).
    #[arg(long, default_value_t = 0.5)]
    pub split: f32,
    /// A JSON Patch (as `edit` takes) making --compare's B side.
    #[arg(long)]
    pub patch: Option<String>,
    #[arg(long, value_enum, default_value = "specialized")]
    pub shader: ShaderPath,
    #[arg(long, default_value_t = 0.0)]
    pub time: f32,
    /// Animation: an ANIM file or `PAK:ID`, or an animation name of the character.
    #[arg(long)]
    pub anim: Option<String>,
    /// A CMDL (file or `PAK:ID`) instead of the model the character names.
    #[arg(long)]
    pub model: Option<String>,
    /// A CSKR (file or `PAK:ID`) instead of the one the character names.
    #[arg(long)]
    pub skin: Option<String>,
    /// A CINF (file or `PAK:ID`) instead of the one the character names.
    #[arg(long)]
    pub skeleton: Option<String>,
    /// A folder searched for textures (by asset ID in file names) before the input's own;
    /// may be given more than once.
    #[arg(long = "texture-dir")]
    pub texture_dir: Vec<PathBuf>,
    /// Light layer N of the area drawn (layer0, layer1, …; an area's default is layer0),
    /// a preset (basic, the default for models; none), a light set saved by the viewer
    /// (FILE.json), or another MREA (its first layer).
    #[arg(long)]
    pub lights: Option<String>,
    /// yaw,pitch,distance (degrees, degrees, model units).
    #[arg(long)]
    pub camera: Option<String>,
    /// Keep the background transparent.
    #[arg(long)]
    pub transparent: bool,
    /// Blend in the shader with GX's integer rule (exact) instead of host blending.
    #[arg(long)]
    pub exact_blend: bool,
    /// An MP3 Alt of the spec to switch on (see README "MP3 Alts"); may be repeated.
    #[arg(long = "mp3-alt", value_name = "ALT", value_parser = crate::load::mp3_alts::parse_alt_name)]
    pub mp3_alt: Vec<String>,
    #[arg(long, value_enum)]
    pub game: Option<GameArg>,
}

/// The frame of `export -o OUT.dff`: `render`'s arguments that `export` lacks.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FrameArgs {
    /// Frame size WxH, up to 640x528 (DFF only).
    #[arg(long, default_value = "640x480")]
    pub size: String,
    /// Lights, as for `render --lights` (DFF and --bake).
    #[arg(long)]
    pub lights: Option<String>,
    /// Bake what tevscope draws into each material's base colour texture (glTF).
    #[arg(long)]
    pub bake: bool,
    /// Largest side of a baked texture.
    #[arg(long, default_value_t = crate::views::bake::DEFAULT_MAX_SIZE)]
    pub bake_size: u32,
    /// yaw,pitch,distance, as for `render --camera` (DFF and --bake).
    #[arg(long)]
    pub camera: Option<String>,
    /// Append an EFB → RAM RGBA8 copy and a frame that samples it (DFF only).
    #[arg(long)]
    pub readback: bool,
}

/// Parses `--camera yaw,pitch,distance`.
pub fn parse_camera(c: Option<&str>) -> anyhow::Result<Option<[f32; 3]>> {
    c.map(|c| parse_floats::<3>(c, "--camera")).transpose()
}

/// Parses `WxH`.
pub fn parse_size(s: &str) -> anyhow::Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| anyhow::anyhow!("size must be WxH, got {s:?}"))?;
    let (w, h): (u32, u32) = (w.trim().parse()?, h.trim().parse()?);
    anyhow::ensure!(
        (1..=16384).contains(&w) && (1..=16384).contains(&h),
        "size {w}x{h} out of range"
    );
    Ok((w, h))
}

/// Parses N comma-separated floats.
pub fn parse_floats<const N: usize>(s: &str, what: &str) -> anyhow::Result<[f32; N]> {
    let v: Vec<f32> = s
        .split(',')
        .map(|x| x.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
    v.try_into()
        .map_err(|v: Vec<f32>| anyhow::anyhow!("{what}: expected {N} numbers, got {}", v.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `--model` names a character's model on render, export and view (the viewer needs
    /// the character it is for); `uvanim --model` stays a matrix.
    #[test]
    fn model_flag_on_render_export_and_view() {
        let model = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Some(Command::Render(r))) => r.model,
            Ok(Some(Command::Export { model, .. })) => model,
            Ok(Some(Command::View(v))) => v.model,
            Ok(Some(Command::Uvanim { model, .. })) => model,
            other => panic!("{other:?}"),
        };
        let some = Some("m.CMDL".to_owned());
        assert_eq!(
            model(&["t", "render", "c.ANCS", "--model", "m.CMDL", "-o", "o.png"]),
            some
        );
        assert_eq!(
            model(&["t", "export", "c.ANCS", "--model", "m.CMDL", "-o", "o.glb"]),
            some
        );
        assert_eq!(model(&["t", "view", "c.ANCS", "--model", "m.CMDL"]), some);
        assert_eq!(
            model(&["t", "uvanim", "a.CMDL", "--model", "1,2"]),
            Some("1,2".to_owned())
        );
        assert!(Cli::try_parse_from(["t", "view", "--model", "m.CMDL"]).is_err());
    }

    #[test]
    fn parses_sizes_and_vectors() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert!(parse_size("0x5").is_err());
        assert!(parse_size("12").is_err());
        assert_eq!(parse_floats::<3>("1, 2,3", "c").unwrap(), [1.0, 2.0, 3.0]);
        assert!(parse_floats::<3>("1,2", "c").is_err());
    }
}
