//! The Lights tab's side of the viewer (`parts::LightsPanel`): the area light records (`formats.md`
//! §9.4) the model view is lit by, edited as the game defines them (kind, colour, brightness,
//! falloff, cutoff, position, direction). Every change rebuilds `light_set` through the engine's
//! conversion ([`LightSet::from_layer`], `gx.md` §10.4) and bumps `lights_revision`, which
//! re-uploads uniforms only: lights are not part of any shader key, so an edit never compiles a
//! pipeline. Every change the user makes is a step of the viewer's undo history
//! ([`super::history::History`]).

use std::path::{Path, PathBuf};

use glam::Vec3;

use crate::gx::lights::{LightOptions, LightSet, PrimeLight, PrimeLightType};

use super::history::Step;
use super::light_editor::{LightStep, LightsState};
use super::parts::LightsPanel;
use crate::session::LightChoice;

/// A unit direction from yaw (about world Z, 0 = towards +Y) and pitch (up from the XY
/// plane), degrees: the orbit camera's convention.
pub fn direction_from_angles(yaw_degrees: f32, pitch_degrees: f32) -> [f32; 3] {
    let (y, p) = (yaw_degrees.to_radians(), pitch_degrees.to_radians());
    [p.cos() * y.sin(), p.cos() * y.cos(), p.sin()]
}

/// Yaw and pitch (degrees) of a direction; (0, 0) for a zero vector.
pub fn angles_of_direction(d: [f32; 3]) -> (f32, f32) {
    let d = Vec3::from(d).normalize_or_zero();
    if d == Vec3::ZERO {
        return (0.0, 0.0);
    }
    (
        d.x.atan2(d.y).to_degrees(),
        d.z.clamp(-1.0, 1.0).asin().to_degrees(),
    )
}

impl LightsPanel<'_> {
    /// Switches the lights as one undoable step (an MREA or file is read now; failures
    /// keep the old lights).
    pub fn set_lights(&mut self, choice: LightChoice) {
        match choice.records() {
            Some(Ok(records)) => self.use_lights(choice, records),
            Some(Err(e)) => self.messages.load_error = Some(format!("lights: {e:#}")),
            None => {}
        }
    }

    /// Lights the view with `records`, which `choice` stands for (already read), as one
    /// undoable step; nothing is selected.
    pub(crate) fn use_lights(
        &mut self,
        choice: LightChoice,
        records: Vec<crate::gx::lights::PrimeLight>,
    ) {
        self.change_lights(format!("lights: {}", choice.label()), choice, records);
        self.light_editor.selected = None;
    }

    /// Records a light step after the done ones; the undone steps (the document's too) are
    /// dropped, as a new material edit drops them.
    pub(crate) fn push_light_step(&mut self, step: LightStep) {
        self.history.undo.push(Step::Lights(Box::new(step)));
        self.history.redo.clear();
        self.session.clear_redo();
    }

    /// Rebuilds `light_set` from the editor's records (the engine's conversion) and tells
    /// the viewport to upload it.
    pub fn lights_changed(&mut self) {
        self.session.lights.set =
            LightSet::from_layer(&self.light_editor.records, &LightOptions::default());
        self.session.lights.revision += 1;
    }

    /// The lights as they are now, for the undo history.
    fn lights_state(&self) -> LightsState {
        LightsState {
            records: self.light_editor.records.clone(),
            choice: self.session.lights.choice.clone(),
        }
    }

    /// Lights the view with `records`, which `choice` stands for, as one undoable step
    /// labelled `label`. Nothing happens when neither changes; a change with the same label
    /// within a second of the last (a drag) joins its step. False when nothing changed.
    pub(crate) fn change_lights(
        &mut self,
        label: String,
        choice: LightChoice,
        records: Vec<PrimeLight>,
    ) -> bool {
        if choice == self.session.lights.choice
            && same_records(&records, &self.light_editor.records)
        {
            return false;
        }
        let before = self.lights_state();
        self.light_editor.records = records;
        self.session.lights.choice = choice;
        let len = self.light_editor.records.len();
        self.light_editor.selected = self.light_editor.selected.filter(|&i| i < len);
        self.lights_changed();
        let after = self.lights_state();
        let merge = self.history.merges_with_last_edit(&label);
        self.history.edited(label.clone());
        match self.history.last_lights_mut() {
            Some(last) if merge && last.label == label => last.after = after,
            _ => self.push_light_step(LightStep {
                label,
                before,
                after,
            }),
        }
        true
    }

    /// Puts the lights back as an undo or redo step left them.
    pub(crate) fn restore_lights(&mut self, state: &LightsState) {
        self.light_editor.records = state.records.clone();
        self.session.lights.choice = state.choice.clone();
        let len = self.light_editor.records.len();
        self.light_editor.selected = self.light_editor.selected.filter(|&i| i < len);
        self.lights_changed();
    }

    /// The records edited by hand: `records` become the lights, as one undoable step.
    pub(crate) fn edit_lights(&mut self, label: String, records: Vec<PrimeLight>) -> bool {
        self.change_lights(label, LightChoice::Edited, records)
    }

    /// Applies `edit` to light `index` (the `field` it changes names the undo step);
    /// rebuilds the lights only when the record changed. False when there is no such light
    /// or nothing changed.
    pub fn edit_light(
        &mut self,
        index: usize,
        field: &str,
        edit: impl FnOnce(&mut PrimeLight),
    ) -> bool {
        let mut records = self.light_editor.records.clone();
        let Some(record) = records.get_mut(index) else {
            return false;
        };
        edit(record);
        if same_records(&records, &self.light_editor.records) {
            return false;
        }
        self.edit_lights(format!("light {index}: {field}"), records)
    }

    /// Adds a light of `kind` halfway between the eye and the camera's target (so it is in
    /// view and lights what is looked at; a spot points at the target) and selects it.
    pub fn add_light(&mut self, kind: PrimeLightType) {
        let target = Vec3::from(self.session.camera.orbit.target);
        let at = target + (self.session.camera.orbit.eye() - target) * 0.5;
        let mut light = PrimeLight::new(kind, at.to_array());
        if kind == PrimeLightType::Spot {
            light.direction = (target - at).normalize_or(Vec3::NEG_Z).to_array();
        }
        let mut records = self.light_editor.records.clone();
        records.push(light);
        let index = records.len() - 1;
        self.edit_lights(format!("add light {index}"), records);
        self.light_editor.selected = Some(index);
    }

    /// Removes light `index`; the selection moves to its neighbour.
    pub fn remove_light(&mut self, index: usize) {
        let mut records = self.light_editor.records.clone();
        if index >= records.len() {
            return;
        }
        records.remove(index);
        let len = records.len();
        self.edit_lights(format!("remove light {index}"), records);
        self.light_editor.selected = (len > 0).then(|| index.min(len - 1));
    }

    /// Copies light `index` right after itself and selects the copy.
    pub fn duplicate_light(&mut self, index: usize) {
        let mut records = self.light_editor.records.clone();
        let Some(&record) = records.get(index) else {
            return;
        };
        records.insert(index + 1, record);
        self.edit_lights(format!("duplicate light {index}"), records);
        self.light_editor.selected = Some(index + 1);
    }

    /// Writes the records to `path` as a light set file (temporary file, then rename);
    /// `.json` is added to a name without an extension.
    pub fn save_light_file(&mut self, path: &Path) -> bool {
        let path = &super::prefs::with_default_extension(path, "json");
        let text = crate::gx::light_file::to_json(&self.light_editor.records);
        match crate::edit::write_atomically(path, text.as_bytes()) {
            Ok(()) => {
                self.light_editor.error = None;
                self.light_editor.path_open = false;
                self.light_editor.path_text = path.display().to_string();
                self.messages.notice = Some(format!("Saved lights to {}", path.display()));
                true
            }
            Err(e) => {
                self.light_editor.error = Some(format!("{}: cannot write: {e}", path.display()));
                false
            }
        }
    }

    /// Reads a light set file and lights the view with it (failures keep the old lights).
    pub fn load_light_file(&mut self, path: &Path) -> bool {
        match crate::load::read_light_file(path) {
            Ok(records) => {
                self.light_editor.error = None;
                self.light_editor.path_open = false;
                self.light_editor.path_text = path.display().to_string();
                let name = path
                    .file_name()
                    .unwrap_or(path.as_os_str())
                    .to_string_lossy();
                self.change_lights(
                    format!("load lights {name}"),
                    LightChoice::file(path),
                    records,
                );
                self.light_editor.selected = None;
                true
            }
            Err(e) => {
                self.light_editor.error = Some(format!("{e:#}"));
                false
            }
        }
    }

    /// Asks for a light set path with the native dialog and saves or loads it; without a
    /// dialog (or when it is cancelled) the typed path field is shown instead.
    pub fn light_file_dialog(&mut self, save: bool) {
        let mut current = PathBuf::from(self.light_editor.path_text.trim());
        // A bare name goes next to the open file.
        if let Some(doc) = self.session.asset()
            && current.is_relative()
        {
            current = doc.dir.join(current);
            self.light_editor.path_text = current.display().to_string();
        }
        let dialog = super::file_dialog(&current, None).add_filter("light set", &["json"]);
        let picked = if save {
            dialog.save_file()
        } else {
            dialog.pick_file()
        };
        match picked {
            Some(path) if save => {
                self.save_light_file(&path);
            }
            Some(path) => {
                self.load_light_file(&path);
            }
            None => self.light_editor.path_open = true,
        }
    }

    /// Where a light set can start from: the presets, then every light layer of the MREAs
    /// next to the open file (with its light count; read once per file).
    pub fn light_starts(&mut self) -> Vec<(LightChoice, Option<usize>)> {
        let areas: &[(String, String)] = self.session.asset().map_or(&[], |d| &d.areas);
        let fresh = matches!(&self.light_editor.layer_cache, Some((a, _)) if a.as_slice() == areas);
        if !fresh {
            let layers = areas
                .iter()
                .flat_map(|(label, spec)| {
                    let layers = crate::load::area_light_layers(spec).unwrap_or_default();
                    layers
                        .into_iter()
                        .enumerate()
                        .map(|(n, l)| {
                            let label = match n {
                                0 => format!("area: {label}"),
                                n => format!("area: {label} layer {n}"),
                            };
                            let choice = LightChoice::area(label, spec.clone(), n);
                            (choice, l.len())
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            self.light_editor.layer_cache = Some((areas.to_vec(), layers));
        }
        let mut out = vec![(LightChoice::basic(), None), (LightChoice::none(), None)];
        if let Some((_, layers)) = &self.light_editor.layer_cache {
            out.extend(layers.iter().map(|(c, n)| (c.clone(), Some(*n))));
        }
        out
    }
}

/// Whether two record lists are the same bit for bit (so a NaN typed into a field still
/// counts as a change once, and `-0.0` differs from `0.0`, as in the file).
fn same_records(a: &[PrimeLight], b: &[PrimeLight]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.light_type == y.light_type && x.falloff == y.falloff && bits(x) == bits(y)
        })
}

fn bits(r: &PrimeLight) -> [u32; 12] {
    let mut out = [0; 12];
    let values = r
        .color
        .iter()
        .chain(&r.position)
        .chain(&r.direction)
        .chain([&r.brightness]);
    for (o, v) in out.iter_mut().zip(values) {
        *o = v.to_bits();
    }
    out[11] = r.spot_cutoff.to_bits();
    out
}
