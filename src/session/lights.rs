//! The lights a session draws with: where they come from ([`LightChoice`], one type for
//! the viewer's menus and the CLI's `--lights`), as a [`LightSource`] with its label.

use crate::load::LightSource;

/// The model view's lighting: a [`LightSource`] with the label the menus show, or lights
/// edited by hand in the Lights tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LightChoice {
    Source {
        label: String,
        source: LightSource,
    },
    /// Edited in the Lights tab.
    Edited,
}

impl LightChoice {
    /// tevscope's neutral preset.
    pub fn basic() -> Self {
        Self::Source {
            label: "basic".into(),
            source: LightSource::Basic,
        }
    }

    /// What the game does with no lights: ambient only.
    pub fn none() -> Self {
        Self::Source {
            label: "none (game, no lights)".into(),
            source: LightSource::None,
        }
    }

    /// Light layer `layer` of an MREA (a file or `PAK:ID`).
    pub fn area(label: String, spec: String, layer: usize) -> Self {
        Self::Source {
            label,
            source: LightSource::Area { spec, layer },
        }
    }

    /// A light set file.
    pub fn file(path: &std::path::Path) -> Self {
        Self::Source {
            label: path.display().to_string(),
            source: LightSource::File(path.to_path_buf()),
        }
    }

    pub fn label(&self) -> &str {
        match self {
            Self::Source { label, .. } => label,
            Self::Edited => "edited (Lights tab)",
        }
    }

    /// Where the lights come from; None when they were edited by hand.
    pub fn source(&self) -> Option<&LightSource> {
        match self {
            Self::Source { source, .. } => Some(source),
            Self::Edited => None,
        }
    }

    /// The area light records the choice stands for (MREAs and files are read now);
    /// None for [`LightChoice::Edited`], which only the Lights tab's records hold.
    pub(crate) fn records(&self) -> Option<anyhow::Result<Vec<crate::gx::lights::PrimeLight>>> {
        self.source().map(|s| s.records(&[]))
    }
}

/// The lights the model view draws with: what they stand for, the GX light set built from
/// them, and a revision bumped on every change (the scene uploads uniforms only then).
#[derive(Debug, Clone)]
pub struct Lights {
    pub choice: LightChoice,
    pub set: crate::gx::lights::LightSet,
    pub revision: u64,
}

impl Default for Lights {
    fn default() -> Self {
        Self {
            choice: LightChoice::basic(),
            set: crate::gx::lights::LightPreset::Basic.light_set(),
            revision: 0,
        }
    }
}
