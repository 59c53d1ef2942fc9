//! The skeleton overlay of the model view: the posed bones as lines and joints, projected
//! with the scene's camera ([`crate::camera::OrbitCamera::project`]), and the name of the joint
//! under the pointer.

use egui::{Color32, Stroke, Ui};

use crate::session::Session;
use crate::ui::animation::AnimView;
use crate::ui::animation::nearest_joint;

/// Joints within this many points of the pointer are hovered.
const HOVER_RADIUS: f32 = 8.0;

/// Draws the skeleton over the view image at `rect` (a `size` pixel target at `ppp`).
pub(super) fn skeleton_overlay(
    ui: &Ui,
    session: &Session,
    anim_view: &AnimView,
    rect: egui::Rect,
    size: [u32; 2],
    ppp: f32,
) {
    if !anim_view.skeleton {
        return;
    }
    let Some((skeleton, joints)) = anim_view.posed_skeleton(session) else {
        return;
    };
    let target = [size[0] as f32, size[1] as f32];
    let points: Vec<Option<[f32; 2]>> = joints
        .iter()
        .map(|&j| {
            session
                .camera
                .orbit
                .project(j, target)
                .map(|[x, y]| [rect.min.x + x / ppp, rect.min.y + y / ppp])
        })
        .collect();
    let painter = ui.painter_at(rect);
    let bone = Color32::from_rgb(255, 200, 60);
    let shadow = Color32::from_black_alpha(160);
    for (i, b) in skeleton.bones().iter().enumerate() {
        if let (Some(p), Some(a)) = (b.parent, points[i])
            && let Some(Some(q)) = points.get(p)
        {
            let seg = [egui::Pos2::from(a), egui::Pos2::from(*q)];
            painter.line_segment(seg, Stroke::new(3.5, shadow));
            painter.line_segment(seg, Stroke::new(1.5, bone));
        }
    }
    for p in points.iter().flatten() {
        painter.circle(
            egui::Pos2::from(*p),
            3.0,
            Color32::WHITE,
            Stroke::new(1.0, shadow),
        );
    }
    let hovered = ui
        .ctx()
        .pointer_hover_pos()
        .filter(|p| rect.contains(*p))
        .and_then(|p| nearest_joint(&points, [p.x, p.y], HOVER_RADIUS));
    if let Some(i) = hovered
        && let Some(p) = points[i]
    {
        let b = &skeleton.bones()[i];
        let at = egui::Pos2::from(p);
        painter.circle_stroke(at, 6.0, Stroke::new(2.0, Color32::from_rgb(80, 220, 255)));
        let name = if b.name.is_empty() {
            format!("bone {}", b.id)
        } else {
            format!("{} (bone {})", b.name, b.id)
        };
        let galley = painter.layout_no_wrap(name, egui::FontId::proportional(13.0), Color32::WHITE);
        let pos = at + egui::vec2(10.0, -galley.size().y - 6.0);
        let bg = egui::Rect::from_min_size(pos, galley.size()).expand(3.0);
        painter.rect_filled(bg, 3.0, Color32::from_black_alpha(200));
        painter.galley(pos, galley, Color32::WHITE);
    }
}
