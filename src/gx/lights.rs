//! Prime's area lights and the GX light values the engine derives from them
//! (`gx.md` §10.3–10.5), plus light selection and tevscope's presets.
//!
//! A [`PrimeLight`] is what an MREA light record says (`formats.md` §9.4); [`PrimeLight::to_gx`]
//! turns it into what the engine loads into a GX light ([`GxLight`], world space) or the
//! ambient register ([`GxLightValue::Ambient`]). Transforming to view space and packing for
//! the shader happens per frame (`gx::frame`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Prime's "very far" distance for directional lights: position = −direction · 2²⁰.
pub const DIRECTIONAL_DISTANCE: f32 = 1_048_576.0;

/// The engine's radius constant: min(1/17, 0.2).
pub const RADIUS_FACTOR: f32 = 1.0 / 17.0;

/// Light type word of a record. Serialized by [`PrimeLightType::name`] (light set files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimeLightType {
    LocalAmbient,
    Directional,
    Spot,
    /// Anything else (2 in practice): the game's omnidirectional lights.
    Custom,
}

impl PrimeLightType {
    pub fn from_word(w: u32) -> Self {
        match w {
            0 => Self::LocalAmbient,
            1 => Self::Directional,
            3 => Self::Spot,
            _ => Self::Custom,
        }
    }
    /// The word a record stores (custom lights: 2, what the game uses).
    pub fn word(self) -> u32 {
        match self {
            Self::LocalAmbient => 0,
            Self::Directional => 1,
            Self::Custom => 2,
            Self::Spot => 3,
        }
    }
    pub const ALL: [Self; 4] = [
        Self::LocalAmbient,
        Self::Directional,
        Self::Spot,
        Self::Custom,
    ];
    /// Name as in the conformance JSON (`local_ambient`, `directional`, `spot`, `custom`).
    pub fn name(self) -> &'static str {
        match self {
            Self::LocalAmbient => "local_ambient",
            Self::Directional => "directional",
            Self::Spot => "spot",
            Self::Custom => "custom",
        }
    }
}

/// Distance falloff of a record (serialized as `constant`, `linear`, `quadratic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Falloff {
    Constant,
    Linear,
    Quadratic,
}

impl Falloff {
    /// Decodes the falloff word; values above 2 are treated as constant (`formats.md` §9.4),
    /// which the caller reports (see [`Falloff::is_known`]).
    pub fn from_word(w: u32) -> Self {
        match w {
            1 => Self::Linear,
            2 => Self::Quadratic,
            _ => Self::Constant,
        }
    }
    /// The word a record stores.
    pub fn word(self) -> u32 {
        match self {
            Self::Constant => 0,
            Self::Linear => 1,
            Self::Quadratic => 2,
        }
    }
    pub const ALL: [Self; 3] = [Self::Constant, Self::Linear, Self::Quadratic];
    pub fn is_known(w: u32) -> bool {
        w <= 2
    }
    /// Name as in the conformance JSON.
    pub fn name_of_word(w: u32) -> &'static str {
        match w {
            0 => "constant",
            1 => "linear",
            2 => "quadratic",
            _ => "unknown",
        }
    }
}

/// The fields of an area light record that the engine uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PrimeLight {
    /// Raw type word (0 ambient, 1 directional, 3 spot, other custom).
    pub light_type: u32,
    /// RGBA (MP1/MP2 records have no alpha: 1).
    pub color: [f32; 4],
    pub position: [f32; 3],
    pub direction: [f32; 3],
    /// "q".
    pub brightness: f32,
    /// Full cone angle in degrees.
    pub spot_cutoff: f32,
    /// Raw falloff word (0 constant, 1 linear, 2 quadratic).
    pub falloff: u32,
}

/// The Default/Alt switches of `gx.md` §10.4. `Default::default()` is tevscope's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LightOptions {
    /// *Alt:* use the spot cutoff as stored instead of halving it.
    pub spot_cutoff_as_stored: bool,
    /// *Alt:* 249.9998/q instead of 250/q for custom lights' linear coefficient.
    pub custom_linear_249: bool,
    /// *Alt:* build directional lights from the record's position field (the
    /// decompilation's converter) instead of its direction field.
    pub directional_from_position: bool,
}

/// A GX light (`gx.md` §10.3) in world space, as the engine loads it before the camera
/// transform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GxLight {
    /// RGBA8 (trunc(clamp(x, 0, 1) · 255)).
    pub color: [u8; 4],
    pub position: [f32; 3],
    /// The light's direction (GX stores its negation; the per-frame packing negates).
    pub direction: [f32; 3],
    /// a0, a1, a2.
    pub angle_atten: [f32; 3],
    /// k0, k1, k2.
    pub dist_atten: [f32; 3],
}

/// What a record becomes: a GX light, or the ambient register colour.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GxLightValue {
    Ambient([u8; 4]),
    Light(GxLight),
}

/// Float colour → 8 bits as the engine converts: trunc(clamp(x, 0, 1) · 255).
pub fn color_to_u8(x: f32) -> u8 {
    // NaN clamps to NaN and `as u8` maps it to 0.
    (x.clamp(0.0, 1.0) * 255.0) as u8
}

fn rgba_to_u8(c: [f32; 4]) -> [u8; 4] {
    c.map(color_to_u8)
}

/// The brightness used for distance coefficients: q, or 1e-6 when q < FLT_EPSILON.
pub fn effective_brightness(q: f32) -> f32 {
    if q < f32::EPSILON { 1e-6 } else { q }
}

/// Distance coefficients (k0, k1, k2) from a falloff word and brightness (`gx.md` §10.4).
pub fn distance_attenuation(falloff: u32, brightness: f32, linear_numerator: f32) -> [f32; 3] {
    let q = effective_brightness(brightness);
    match Falloff::from_word(falloff) {
        Falloff::Constant => [2.0 / q, 0.0, 0.0],
        Falloff::Linear => [0.0, linear_numerator / q, 0.0],
        Falloff::Quadratic => [0.0, 0.0, 25000.0 / q],
    }
}

/// Spot angle coefficients: `GXInitLightSpot(cutoff, COS2)`; OFF (1, 0, 0) when the
/// cutoff is ≤ 0 or > 90 degrees.
pub fn spot_attenuation(cutoff_degrees: f32) -> [f32; 3] {
    if cutoff_degrees <= 0.0 || cutoff_degrees > 90.0 || cutoff_degrees.is_nan() {
        return [1.0, 0.0, 0.0];
    }
    let cr = (cutoff_degrees * std::f32::consts::PI / 180.0).cos();
    [0.0, -cr / (1.0 - cr), 1.0 / (1.0 - cr)]
}

fn normalized(v: [f32; 3]) -> [f32; 3] {
    Vec3::from(v).normalize_or_zero().to_array()
}

impl PrimeLight {
    pub fn kind(&self) -> PrimeLightType {
        PrimeLightType::from_word(self.light_type)
    }

    /// A new light of `kind` as the Lights panel adds it: white at `position`; spot and
    /// directional lights point along the basic preset's light, spots with a 60° cone. Constant falloff; point and spot lights get brightness 2, so k0 = 1 and
    /// they light at full colour at any distance until the falloff is changed.
    pub fn new(kind: PrimeLightType, position: [f32; 3]) -> Self {
        let (brightness, spot_cutoff) = match kind {
            PrimeLightType::Spot => (2.0, 60.0),
            PrimeLightType::Custom => (2.0, 0.0),
            _ => (1.0, 0.0),
        };
        Self {
            light_type: kind.word(),
            color: [1.0; 4],
            position,
            direction: LightPreset::BASIC_DIRECTION,
            brightness,
            spot_cutoff,
            falloff: Falloff::Constant.word(),
        }
    }

    /// The falloff the engine applies (unknown words act as constant).
    pub fn falloff(&self) -> Falloff {
        Falloff::from_word(self.falloff)
    }

    /// The GX values the engine loads for this record (`gx.md` §10.4).
    pub fn to_gx(&self, options: &LightOptions) -> GxLightValue {
        let color = rgba_to_u8(self.color);
        let q = self.brightness;
        match self.kind() {
            PrimeLightType::LocalAmbient => {
                // min(1, colour × q) per component (then the usual 8-bit truncation).
                GxLightValue::Ambient(self.color.map(|c| color_to_u8((c * q).min(1.0))))
            }
            PrimeLightType::Directional => {
                let d = if options.directional_from_position {
                    self.position
                } else {
                    self.direction
                };
                GxLightValue::Light(GxLight {
                    color,
                    position: d.map(|x| -x * DIRECTIONAL_DISTANCE),
                    direction: d,
                    angle_atten: [1.0, 0.0, 0.0],
                    dist_atten: [1.0, 0.0, 0.0],
                })
            }
            PrimeLightType::Spot => {
                let cutoff = if options.spot_cutoff_as_stored {
                    self.spot_cutoff
                } else {
                    self.spot_cutoff * 0.5
                };
                GxLightValue::Light(GxLight {
                    color,
                    position: self.position,
                    direction: normalized(self.direction),
                    angle_atten: spot_attenuation(cutoff),
                    dist_atten: distance_attenuation(self.falloff, q, 250.0),
                })
            }
            PrimeLightType::Custom => {
                let linear = if options.custom_linear_249 {
                    249.9998
                } else {
                    250.0
                };
                GxLightValue::Light(GxLight {
                    color,
                    position: self.position,
                    // The engine builds custom lights with direction (1, 0, 0); the angle
                    // coefficients (1, 0, 0) make it irrelevant.
                    direction: [1.0, 0.0, 0.0],
                    angle_atten: [1.0, 0.0, 0.0],
                    dist_atten: distance_attenuation(self.falloff, q, linear),
                })
            }
        }
    }
}

impl GxLight {
    /// A directional light as the engine builds one from a direction.
    pub fn directional(color: [u8; 4], direction: [f32; 3]) -> Self {
        Self {
            color,
            position: direction.map(|x| -x * DIRECTIONAL_DISTANCE),
            direction,
            angle_atten: [1.0, 0.0, 0.0],
            dist_atten: [1.0, 0.0, 0.0],
        }
    }

    /// A point light (custom light) with distance coefficients k.
    pub fn point(color: [u8; 4], position: [f32; 3], dist_atten: [f32; 3]) -> Self {
        Self {
            color,
            position,
            direction: [1.0, 0.0, 0.0],
            angle_atten: [1.0, 0.0, 0.0],
            dist_atten,
        }
    }

    /// The engine's intensity: max(r, g, b) in 0…1, × a0 for lights without spot
    /// coefficients (custom lights).
    pub fn intensity(&self) -> f32 {
        let [r, g, b, _] = self.color.map(|c| f32::from(c) / 255.0);
        let i = r.max(g).max(b);
        let [a0, a1, a2] = self.angle_atten;
        if a1 == 0.0 && a2 == 0.0 { i * a0 } else { i }
    }

    /// The engine's light radius: ∞ when k1 and k2 are both < ε; else √(I / (k2/17)) when
    /// k2 > ε; else I / (k1/17).
    pub fn radius(&self) -> f32 {
        let [_, k1, k2] = self.dist_atten;
        let eps = f32::EPSILON;
        if k1 < eps && k2 < eps {
            f32::INFINITY
        } else if k2 > eps {
            (self.intensity() / (k2 * RADIUS_FACTOR)).sqrt()
        } else {
            self.intensity() / (k1 * RADIUS_FACTOR)
        }
    }

    /// Normal-independent lighting at `point`: colour / (k2·d² + k1·d + k0), d =
    /// max(|Lpos − X|, ε); RGB in 0…1.
    pub fn lighting_at(&self, point: Vec3) -> Vec3 {
        let d = (Vec3::from(self.position) - point)
            .length()
            .max(f32::EPSILON);
        let [k0, k1, k2] = self.dist_atten;
        let c = Vec3::new(
            f32::from(self.color[0]),
            f32::from(self.color[1]),
            f32::from(self.color[2]),
        ) / 255.0;
        c / (k2 * d * d + k1 * d + k0)
    }
}

/// A light rig: the ambient register colour plus up to any number of GX lights (world
/// space); [`select_lights`] chooses which ≤ 8 a model gets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightSet {
    pub ambient: [u8; 4],
    pub lights: Vec<GxLight>,
}

/// How the lights of a [`LightSet`] are chosen per model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LightSelection {
    /// The first `n` lights in order (user lights, n ≤ 8).
    First(usize),
    /// The `n` brightest at the model's box centre (area layers: Default 4, Alt 8).
    Brightest(usize),
}

impl Default for LightSelection {
    fn default() -> Self {
        Self::Brightest(4)
    }
}

/// GX has 8 lights.
pub const MAX_GX_LIGHTS: usize = 8;

/// Chooses lights for a model at `point` (its box centre) into `out` (indices into
/// `lights`), brightest first for [`LightSelection::Brightest`]; returns how many. No
/// allocation: a fixed insertion sort over the candidates.
pub fn select_lights(
    lights: &[GxLight],
    point: Vec3,
    selection: LightSelection,
    out: &mut [usize; MAX_GX_LIGHTS],
) -> usize {
    match selection {
        LightSelection::First(n) => {
            let n = n.min(MAX_GX_LIGHTS).min(lights.len());
            for (i, slot) in out.iter_mut().take(n).enumerate() {
                *slot = i;
            }
            n
        }
        LightSelection::Brightest(n) => {
            let n = n.min(MAX_GX_LIGHTS);
            let mut mags = [0.0f32; MAX_GX_LIGHTS];
            let mut count = 0;
            for (i, light) in lights.iter().enumerate() {
                // Sorting key: magnitude of the normal-independent lighting (RGB length).
                let m = light.lighting_at(point).length();
                let m = if m.is_nan() { 0.0 } else { m };
                // Insert keeping descending order; earlier lights win ties.
                let mut pos = count;
                while pos > 0 && mags[pos - 1] < m {
                    pos -= 1;
                }
                if pos >= n {
                    continue;
                }
                let last = count.min(n - 1);
                let mut k = last;
                while k > pos {
                    mags[k] = mags[k - 1];
                    out[k] = out[k - 1];
                    k -= 1;
                }
                mags[pos] = m;
                out[pos] = i;
                count = (count + 1).min(n);
            }
            count
        }
    }
}

/// Light presets (`gx.md` §10.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LightPreset {
    /// Ambient (128, 128, 128, 255) plus one white directional light.
    Basic,
    /// What the game does for actors without area lights: ambient white, no lights
    /// (lit channels output the ambient colour = white).
    GameNoLights,
}

impl LightPreset {
    /// Direction of the basic preset's light (world, Z up): from the front-left, above.
    pub const BASIC_DIRECTION: [f32; 3] = [0.267_261_24, 0.534_522_5, -0.801_783_7];

    pub fn light_set(self) -> LightSet {
        match self {
            Self::Basic => LightSet {
                ambient: [128, 128, 128, 255],
                lights: vec![GxLight::directional([255; 4], Self::BASIC_DIRECTION)],
            },
            Self::GameNoLights => LightSet {
                ambient: [255; 4],
                lights: Vec::new(),
            },
        }
    }
}

impl LightPreset {
    /// The preset as area light records, so the Lights panel can edit it:
    /// `LightSet::from_layer(&preset.records(), &default)` is `preset.light_set()`.
    pub fn records(self) -> Vec<PrimeLight> {
        let set = self.light_set();
        // c/255 when it truncates back to c through the engine's conversion, else (c + ½)/255.
        let colour = |c: [u8; 4]| {
            c.map(|x| {
                let f = f32::from(x) / 255.0;
                if color_to_u8(f) == x {
                    f
                } else {
                    (f32::from(x) + 0.5) / 255.0
                }
            })
        };
        let mut ambient = PrimeLight::new(PrimeLightType::LocalAmbient, [0.0; 3]);
        ambient.color = colour(set.ambient);
        let mut out = vec![ambient];
        for l in &set.lights {
            // The presets hold directional lights only.
            let mut d = PrimeLight::new(PrimeLightType::Directional, [0.0; 3]);
            d.color = colour(l.color);
            d.direction = l.direction;
            out.push(d);
        }
        out
    }
}

impl LightSet {
    /// The light set of one MREA light layer: the last local-ambient record sets the
    /// ambient (white alpha kept from the record's conversion); every other record is a
    /// light. With no ambient record the ambient is black.
    pub fn from_layer(records: &[PrimeLight], options: &LightOptions) -> Self {
        let mut set = LightSet {
            ambient: [0, 0, 0, 255],
            lights: Vec::with_capacity(records.len()),
        };
        for r in records {
            match r.to_gx(options) {
                GxLightValue::Ambient(c) => set.ambient = c,
                GxLightValue::Light(l) => set.lights.push(l),
            }
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(light_type: u32) -> PrimeLight {
        PrimeLight {
            light_type,
            color: [1.0, 0.5, 0.25, 1.0],
            position: [1.0, 2.0, 3.0],
            direction: [0.0, 0.0, -2.0],
            brightness: 4.0,
            spot_cutoff: 60.0,
            falloff: 1,
        }
    }

    #[test]
    fn colours_truncate() {
        assert_eq!(color_to_u8(1.0), 255);
        assert_eq!(color_to_u8(0.5), 127);
        assert_eq!(color_to_u8(0.875), 223);
        assert_eq!(color_to_u8(-1.0), 0);
        assert_eq!(color_to_u8(7.0), 255);
        assert_eq!(color_to_u8(f32::NAN), 0);
    }

    #[test]
    fn ambient_is_colour_times_q_clamped() {
        let mut r = rec(0);
        r.brightness = 1.5;
        // (1.5, 0.75, 0.375, 1.5) → (255, 191, 95, 255)
        assert_eq!(
            r.to_gx(&LightOptions::default()),
            GxLightValue::Ambient([255, 191, 95, 255])
        );
    }

    #[test]
    fn directional_is_far_along_minus_direction() {
        let GxLightValue::Light(l) = rec(1).to_gx(&LightOptions::default()) else {
            panic!("directional is a light")
        };
        assert_eq!(l.position, [0.0, 0.0, 2.0 * 1_048_576.0]);
        assert_eq!(l.angle_atten, [1.0, 0.0, 0.0]);
        assert_eq!(l.dist_atten, [1.0, 0.0, 0.0]);
        assert_eq!(l.color, [255, 127, 63, 255]);
        let alt = rec(1).to_gx(&LightOptions {
            directional_from_position: true,
            ..Default::default()
        });
        let GxLightValue::Light(alt) = alt else {
            panic!()
        };
        assert_eq!(alt.position, [-1_048_576.0, -2_097_152.0, -3_145_728.0]);
    }

    #[test]
    fn spot_halves_the_cutoff_and_uses_cos2() {
        let GxLightValue::Light(l) = rec(3).to_gx(&LightOptions::default()) else {
            panic!()
        };
        // cutoff 30° → cr = cos 30°.
        let cr = (30.0f32 * std::f32::consts::PI / 180.0).cos();
        assert_eq!(l.angle_atten, [0.0, -cr / (1.0 - cr), 1.0 / (1.0 - cr)]);
        assert_eq!(l.direction, [0.0, 0.0, -1.0]);
        assert_eq!(l.dist_atten, [0.0, 250.0 / 4.0, 0.0]);
        let GxLightValue::Light(alt) = rec(3).to_gx(&LightOptions {
            spot_cutoff_as_stored: true,
            ..Default::default()
        }) else {
            panic!()
        };
        assert_eq!(alt.angle_atten[2], 1.0 / (1.0 - cos_deg(60.0)));
        assert_eq!(spot_attenuation(0.0), [1.0, 0.0, 0.0]);
        assert_eq!(spot_attenuation(90.5), [1.0, 0.0, 0.0]);
        assert_ne!(spot_attenuation(90.0), [1.0, 0.0, 0.0]);
    }

    fn cos_deg(d: f32) -> f32 {
        (d * std::f32::consts::PI / 180.0).cos()
    }

    #[test]
    fn custom_falloffs_and_tiny_brightness() {
        let mut r = rec(2);
        for (falloff, expect) in [
            (0, [0.5, 0.0, 0.0]),
            (1, [0.0, 62.5, 0.0]),
            (2, [0.0, 0.0, 6250.0]),
            (7, [0.5, 0.0, 0.0]),
        ] {
            r.falloff = falloff;
            let GxLightValue::Light(l) = r.to_gx(&LightOptions::default()) else {
                panic!()
            };
            assert_eq!(l.dist_atten, expect, "falloff {falloff}");
            assert_eq!(l.angle_atten, [1.0, 0.0, 0.0]);
        }
        r.falloff = 1;
        r.brightness = 0.0;
        let GxLightValue::Light(l) = r.to_gx(&LightOptions::default()) else {
            panic!()
        };
        assert_eq!(l.dist_atten, [0.0, 250.0 / 1e-6, 0.0]);
        r.brightness = 2.0;
        let GxLightValue::Light(l) = r.to_gx(&LightOptions {
            custom_linear_249: true,
            ..Default::default()
        }) else {
            panic!()
        };
        assert_eq!(l.dist_atten[1], 249.9998 / 2.0);
    }

    #[test]
    fn intensity_radius_and_lighting() {
        let l = GxLight::point([255, 51, 0, 255], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]);
        assert_eq!(l.intensity(), 1.0);
        assert!((l.radius() - (1.0 / (2.0 / 17.0f32)).sqrt()).abs() < 1e-5);
        let lin = GxLight::point([255; 4], [0.0; 3], [0.0, 0.5, 0.0]);
        assert!((lin.radius() - 34.0).abs() < 1e-4);
        let dir = GxLight::directional([255; 4], [0.0, 0.0, -1.0]);
        assert_eq!(dir.radius(), f32::INFINITY);
        // k = (0, 0, 2), d = 2 → colour / 8.
        let c = l.lighting_at(Vec3::new(0.0, 2.0, 0.0));
        assert!((c.x - 1.0 / 8.0).abs() < 1e-6 && (c.y - 0.2 / 8.0).abs() < 1e-6);
    }

    #[test]
    fn selection_keeps_the_brightest_in_order() {
        let p = |x: f32, b: u8| GxLight::point([b, b, b, 255], [x, 0.0, 0.0], [1.0, 0.0, 0.0]);
        let lights = [
            p(0.0, 10),
            p(0.0, 200),
            p(0.0, 50),
            p(0.0, 250),
            p(0.0, 100),
            p(0.0, 200),
        ];
        let mut out = [0; MAX_GX_LIGHTS];
        let n = select_lights(&lights, Vec3::ZERO, LightSelection::Brightest(4), &mut out);
        assert_eq!(n, 4);
        assert_eq!(&out[..4], &[3, 1, 5, 4]);
        let n = select_lights(&lights, Vec3::ZERO, LightSelection::Brightest(8), &mut out);
        assert_eq!(&out[..n], &[3, 1, 5, 4, 2, 0]);
        let n = select_lights(&lights, Vec3::ZERO, LightSelection::First(3), &mut out);
        assert_eq!(&out[..n], &[0, 1, 2]);
        // Distance matters: a bright far light loses to a dim near one.
        let far = [
            GxLight::point([255; 4], [10.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            GxLight::point([40; 4], [0.5, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ];
        let n = select_lights(&far, Vec3::ZERO, LightSelection::Brightest(1), &mut out);
        assert_eq!(&out[..n], &[1]);
    }

    #[test]
    fn preset_records_give_the_preset() {
        for preset in [LightPreset::Basic, LightPreset::GameNoLights] {
            let set = LightSet::from_layer(&preset.records(), &LightOptions::default());
            assert_eq!(set, preset.light_set(), "{preset:?}");
        }
    }

    #[test]
    fn presets() {
        let basic = LightPreset::Basic.light_set();
        assert_eq!(basic.ambient, [128, 128, 128, 255]);
        assert_eq!(basic.lights.len(), 1);
        assert_eq!(basic.lights[0].color, [255; 4]);
        assert!((Vec3::from(LightPreset::BASIC_DIRECTION).length() - 1.0).abs() < 1e-6);
        let none = LightPreset::GameNoLights.light_set();
        assert_eq!(none.ambient, [255; 4]);
        assert!(none.lights.is_empty());
    }
}
