//! GX render state → wgpu state (`gx.md` §7–§9), in one place.
//!
//! ## Where host blending cannot be exact
//! - wgpu blends in float with factors k/255; GX uses integer factors (k + k>>7)/256 with
//!   truncation ([`crate::gx::tev::blend`]). Results differ by up to 1 LSB with exact float
//!   blending and 2 LSB on lavapipe (8-bit fixed-point blending), measured over every factor
//!   pair in `tests/tev_pipeline.rs`. The TEV output
//!   itself (what the shader writes) is exact; tests compare it with blending off.
//! - A source alpha of exactly 1 blends as 0 on GX. Fixed-function blending can only
//!   match that if the shader writes 0 instead (`TevOptions::alpha_one_as_zero`, Alt).
//! - Prime's framebuffer is RGB8: DSTALPHA/INVDSTALPHA become One/Zero (Default). Factors
//!   2/3 in the alpha lane still read the stored destination alpha on the host, where the
//!   RGB8 framebuffer would read 255; that lane is not visible in Prime's output.
//! - LOGIC mode has no blend-state equivalent beyond CLEAR/COPY/NOOP; `Blend` does not carry
//!   the op, so LOGIC draws as COPY (blending off). Prime never uses it.

use crate::gx::tev::TevProgram;
use crate::gx::types::{Blend, BlendFactor, BlendMode, Compare};

/// Switches of the blend conversion (`gx.md` §8.4, §16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BlendConversion {
    /// Alt: DSTALPHA/INVDSTALPHA read the real destination alpha. Default: One/Zero, as on
    /// Prime's RGB8 framebuffer.
    pub real_dst_alpha: bool,
}

/// A GX blend factor used as the **source** factor. Values 2/3 name the destination colour.
pub fn src_factor(f: BlendFactor, conv: BlendConversion) -> wgpu::BlendFactor {
    use wgpu::BlendFactor as W;
    match f {
        BlendFactor::Zero => W::Zero,
        BlendFactor::One => W::One,
        BlendFactor::SrcClr => W::Dst,
        BlendFactor::InvSrcClr => W::OneMinusDst,
        BlendFactor::SrcAlpha => W::SrcAlpha,
        BlendFactor::InvSrcAlpha => W::OneMinusSrcAlpha,
        BlendFactor::DstAlpha if conv.real_dst_alpha => W::DstAlpha,
        BlendFactor::DstAlpha => W::One,
        BlendFactor::InvDstAlpha if conv.real_dst_alpha => W::OneMinusDstAlpha,
        BlendFactor::InvDstAlpha => W::Zero,
    }
}

/// A GX blend factor used as the **destination** factor. Values 2/3 name the source colour.
pub fn dst_factor(f: BlendFactor, conv: BlendConversion) -> wgpu::BlendFactor {
    use wgpu::BlendFactor as W;
    match f {
        BlendFactor::SrcClr => W::Src,
        BlendFactor::InvSrcClr => W::OneMinusSrc,
        other => src_factor(other, conv),
    }
}

/// The wgpu blend state for a GX blend; None = blending off (replace).
pub fn blend_state(blend: Blend, conv: BlendConversion) -> Option<wgpu::BlendState> {
    match blend.mode {
        BlendMode::None | BlendMode::Logic => None,
        BlendMode::Subtract => {
            let c = wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::ReverseSubtract,
            };
            Some(wgpu::BlendState { color: c, alpha: c })
        }
        BlendMode::Blend => {
            let c = wgpu::BlendComponent {
                src_factor: src_factor(blend.src, conv),
                dst_factor: dst_factor(blend.dst, conv),
                operation: wgpu::BlendOperation::Add,
            };
            // ONE/ZERO is a plain write: leave blending off.
            if c == wgpu::BlendComponent::REPLACE {
                None
            } else {
                Some(wgpu::BlendState { color: c, alpha: c })
            }
        }
    }
}

pub fn compare_function(c: Compare) -> wgpu::CompareFunction {
    use wgpu::CompareFunction as W;
    match c {
        Compare::Never => W::Never,
        Compare::Less => W::Less,
        Compare::Equal => W::Equal,
        Compare::LEqual => W::LessEqual,
        Compare::Greater => W::Greater,
        Compare::NEqual => W::NotEqual,
        Compare::GEqual => W::GreaterEqual,
        Compare::Always => W::Always,
    }
}

/// Face culling (`gx.md` §9): Prime culls GX "front" (clockwise on screen), which with
/// counter-clockwise visible faces is wgpu's back face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CullMode {
    #[default]
    Prime,
    None,
}

impl CullMode {
    pub fn face(self) -> Option<wgpu::Face> {
        match self {
            Self::Prime => Some(wgpu::Face::Back),
            Self::None => None,
        }
    }
}

/// The fixed-function state of a material draw (the alpha test lives in the shader:
/// a `discard` after the TEV, so rejected pixels write neither colour nor depth, as Prime
/// orders it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RenderState {
    pub blend: Option<wgpu::BlendState>,
    pub depth_test: bool,
    pub depth_compare: wgpu::CompareFunction,
    pub depth_write: bool,
    pub cull: Option<wgpu::Face>,
    pub topology: wgpu::PrimitiveTopology,
}

impl RenderState {
    /// The state of `program` (blend already forced opaque for punchthrough materials,
    /// depth write from flag 0x80, `gx.md` §8.3, §9).
    pub fn for_program(program: &TevProgram, conv: BlendConversion, cull: CullMode) -> Self {
        Self {
            blend: blend_state(program.blend, conv),
            depth_test: program.depth.test,
            depth_compare: compare_function(program.depth.compare),
            depth_write: program.depth.write,
            cull: cull.face(),
            topology: wgpu::PrimitiveTopology::TriangleList,
        }
    }

    /// Plain write of the TEV output, depth test and write on, no culling: what the TEV
    /// quad preview and the exactness tests use.
    pub const EXACT_QUAD: Self = Self {
        blend: None,
        depth_test: true,
        depth_compare: wgpu::CompareFunction::LessEqual,
        depth_write: true,
        cull: None,
        topology: wgpu::PrimitiveTopology::TriangleStrip,
    };

    pub fn depth_stencil(&self, format: wgpu::TextureFormat) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format,
            depth_write_enabled: Some(self.depth_write),
            depth_compare: Some(if self.depth_test {
                self.depth_compare
            } else {
                wgpu::CompareFunction::Always
            }),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_2_and_3_name_the_other_operand() {
        let c = BlendConversion::default();
        assert_eq!(src_factor(BlendFactor::SrcClr, c), wgpu::BlendFactor::Dst);
        assert_eq!(dst_factor(BlendFactor::SrcClr, c), wgpu::BlendFactor::Src);
        assert_eq!(
            src_factor(BlendFactor::InvSrcClr, c),
            wgpu::BlendFactor::OneMinusDst
        );
        assert_eq!(
            dst_factor(BlendFactor::InvSrcClr, c),
            wgpu::BlendFactor::OneMinusSrc
        );
    }

    #[test]
    fn dst_alpha_emulates_rgb8_by_default() {
        let c = BlendConversion::default();
        assert_eq!(src_factor(BlendFactor::DstAlpha, c), wgpu::BlendFactor::One);
        assert_eq!(
            dst_factor(BlendFactor::InvDstAlpha, c),
            wgpu::BlendFactor::Zero
        );
        let alt = BlendConversion {
            real_dst_alpha: true,
        };
        assert_eq!(
            src_factor(BlendFactor::DstAlpha, alt),
            wgpu::BlendFactor::DstAlpha
        );
        assert_eq!(
            dst_factor(BlendFactor::InvDstAlpha, alt),
            wgpu::BlendFactor::OneMinusDstAlpha
        );
    }

    #[test]
    fn modes() {
        let c = BlendConversion::default();
        assert_eq!(blend_state(Blend::OPAQUE, c), None);
        let add = Blend {
            mode: BlendMode::Blend,
            src: BlendFactor::One,
            dst: BlendFactor::One,
        };
        let s = blend_state(add, c).expect("additive blends");
        assert_eq!(s.color.operation, wgpu::BlendOperation::Add);
        let sub = Blend {
            mode: BlendMode::Subtract,
            ..add
        };
        let s = blend_state(sub, c).expect("subtract blends");
        assert_eq!(s.color.operation, wgpu::BlendOperation::ReverseSubtract);
        let none = Blend {
            mode: BlendMode::None,
            ..add
        };
        assert_eq!(blend_state(none, c), None);
    }
}
