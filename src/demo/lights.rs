//! The light set: a minimal MP1 area whose lights section holds one layer with every light
//! type (local ambient, directional, spot, custom point) and a second, moonlit layer.
//! Positions are chosen for the showcase wall (tiles around x ∈ [−7, 7], z ∈ [0, 4.5],
//! facing +Y) and also light the worm standing at the origin.

use crate::formats::mrea::{
    LIGHT_RECORD_SIZE_MP1, LIGHTS_MAGIC, LightRecord, LightsSection, write_minimal_mp1_mrea,
};

use super::DemoError;

pub const LIGHTS_MREA: u32 = 0xDE07_0001;

/// Light record types (formats.md §9.4).
pub(super) const LOCAL_AMBIENT: u32 = 0;
pub(super) const DIRECTIONAL: u32 = 1;
pub(super) const CUSTOM: u32 = 2;
pub(super) const SPOT: u32 = 3;
/// Falloff types.
const FALLOFF_CONSTANT: u32 = 0;
const FALLOFF_LINEAR: u32 = 1;
const FALLOFF_QUADRATIC: u32 = 2;

/// One light with the unknown fields zeroed.
fn light(
    light_type: u32,
    color: [f32; 3],
    position: [f32; 3],
    direction: [f32; 3],
    brightness: f32,
    spot_cutoff: f32,
    falloff_type: u32,
) -> LightRecord {
    let len = direction
        .iter()
        .map(|c| c * c)
        .sum::<f32>()
        .sqrt()
        .max(1e-6);
    LightRecord {
        light_type,
        color: [color[0], color[1], color[2], 1.0],
        position,
        direction: direction.map(|c| c / len),
        codirection: None,
        brightness,
        spot_cutoff,
        unknown_float_1: 0.0,
        cast_shadows_u8: 0,
        unknown_float_2: 0.0,
        falloff_type,
        unknown_float_3: 0.0,
        mp3_unknown_floats: None,
        mp3_unknown_u32: None,
    }
}

/// A short description of each light of layer 0, for the README (same order).
pub const LAYER0_ABOUT: [&str; 4] = [
    "local ambient: cool grey (0.25, 0.25, 0.3), brightness 1",
    "directional: warm white (0.9, 0.85, 0.75) shining along (−0.3, −0.7, −0.65), brightness 1",
    "spot: blue-white (0.6, 0.8, 1.0) at (4, 6, 6) aimed at (3, 0, 2), 40° cone, linear falloff, brightness 1500 (≈ 1 at 6 units)",
    "custom (point): orange (1.0, 0.5, 0.15) at (−4, 1.5, 1.5), quadratic falloff, brightness 100000 (≈ 1 at 2 units)",
];
pub const LAYER1_ABOUT: [&str; 2] = [
    "local ambient: dark blue (0.05, 0.06, 0.12)",
    "directional: pale moonlight (0.35, 0.4, 0.6) from above, brightness 1",
];

pub(super) fn ambient(color: [f32; 3]) -> LightRecord {
    light(
        LOCAL_AMBIENT,
        color,
        [0.0; 3],
        [0.0, 1.0, 0.0],
        1.0,
        0.0,
        FALLOFF_CONSTANT,
    )
}

pub(super) fn directional(color: [f32; 3], direction: [f32; 3]) -> LightRecord {
    light(
        DIRECTIONAL,
        color,
        [0.0; 3],
        direction,
        1.0,
        0.0,
        FALLOFF_CONSTANT,
    )
}

/// A spot light at `position` aimed at `target`, linear falloff.
pub(super) fn spot(
    color: [f32; 3],
    position: [f32; 3],
    target: [f32; 3],
    brightness: f32,
    cutoff_degrees: f32,
) -> LightRecord {
    let direction = [0, 1, 2].map(|i| target[i] - position[i]);
    light(
        SPOT,
        color,
        position,
        direction,
        brightness,
        cutoff_degrees,
        FALLOFF_LINEAR,
    )
}

/// A custom (point) light, quadratic falloff.
pub(super) fn point(color: [f32; 3], position: [f32; 3], brightness: f32) -> LightRecord {
    light(
        CUSTOM,
        color,
        position,
        [1.0, 0.0, 0.0],
        brightness,
        0.0,
        FALLOFF_QUADRATIC,
    )
}

/// An MP1 lights section holding `layers`.
pub(super) fn mp1_section(layers: Vec<Vec<LightRecord>>) -> LightsSection {
    LightsSection {
        offset: None,
        magic: LIGHTS_MAGIC,
        layers,
        light_record_size: LIGHT_RECORD_SIZE_MP1,
    }
}

/// The two MP1 light layers.
pub fn light_layers() -> LightsSection {
    mp1_section(vec![
        vec![
            ambient([0.25, 0.25, 0.3]),
            directional([0.9, 0.85, 0.75], [-0.3, -0.7, -0.65]),
            spot(
                [0.6, 0.8, 1.0],
                [4.0, 6.0, 6.0],
                [3.0, 0.0, 2.0],
                1500.0,
                40.0,
            ),
            point([1.0, 0.5, 0.15], [-4.0, 1.5, 1.5], 100_000.0),
        ],
        vec![
            ambient([0.05, 0.06, 0.12]),
            directional([0.35, 0.4, 0.6], [-0.1, -0.3, -1.0]),
        ],
    ])
}

/// The area file.
pub fn build_lights_area() -> Result<Vec<u8>, DemoError> {
    write_minimal_mp1_mrea(&light_layers())
        .map_err(|e| DemoError::new("lights MREA", e.to_string()))
}
