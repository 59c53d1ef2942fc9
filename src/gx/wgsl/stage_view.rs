//! Stage views (`render --stage K`, the viewer's stage strip): a material's TEV program cut
//! after stage K, whose pixel is the colour register and the alpha register stage K
//! writes, clamped to 0…255.
//!
//! A stage view is structure: [`crate::gx::tev::TevProgram::from_material`] cuts the program
//! (with [`crate::gx::tev::TevOptions::stage_view`]) and drops the alpha test and blending,
//! so the key of the cut program generates the shorter code and the ubershader runs the
//! shorter program. Both paths write the pixel with [`STAGE_VIEW_LIBRARY`]. Clamping (not
//! the low 8 bits the TEV hands on) because an unclamped register of −1 should read as
//! black, not as 255.

use serde::Serialize;

/// Which stage view a scene draws: stage `stage` of material `material`, or of every
/// material (each shows its stage `stage`, or its last stage when it has fewer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct StageView {
    pub material: Option<usize>,
    pub stage: u8,
}

impl StageView {
    /// The stage material `index` shows, or None when it draws as usual.
    pub fn stage_of(&self, index: usize) -> Option<u8> {
        self.material
            .is_none_or(|m| m == index)
            .then_some(self.stage)
    }
}

/// The WGSL function both shader paths write a stage view's pixel with.
pub const STAGE_VIEW_LIBRARY: &str = "
// Stage view: the colour register and the alpha register the stage writes, clamped 0..255.
fn stage_view_pixel(color_reg: vec4<i32>, alpha_reg: vec4<i32>) -> vec4<i32> {
    return clamp(vec4<i32>(color_reg.rgb, alpha_reg.a), vec4<i32>(0), vec4<i32>(255));
}
";

/// The CPU side of [`STAGE_VIEW_LIBRARY`]: the stage view pixel of one stage's trace.
pub fn stage_view_pixel(trace: &crate::gx::tev::StageTrace) -> [u8; 4] {
    let c = trace.registers[trace.color_dest.index()];
    let a = trace.registers[trace.alpha_dest.index()];
    [c[0], c[1], c[2], a[3]].map(|v| v.clamp(0, 255) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_material_or_every_material() {
        let one = StageView {
            material: Some(2),
            stage: 1,
        };
        assert_eq!(one.stage_of(2), Some(1));
        assert_eq!(one.stage_of(0), None);
        let every = StageView {
            material: None,
            stage: 3,
        };
        assert_eq!(every.stage_of(0), Some(3));
        assert_eq!(every.stage_of(9), Some(3));
    }
}
