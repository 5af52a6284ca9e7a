//! Pictures drawn as the PlayStation draws them: the GTE's fixed-point projection, an ordering
//! table instead of a depth buffer, affine texture mapping from the VRAM through its CLUTs,
//! the TIM transparency rules, flat and Gouraud shading with the GTE's light model, back-face
//! culling, and a 15-bit framebuffer. In Rust, on the CPU.
//!
//! # One rasterizer, two ways in
//! Everything is drawn from one draw list of console polygons ([`Poly`]) by [`raster::draw`].
//! - **TMD** (and TOD + TMD): drawn from the TMD's own packets, as libgs's `GsSortObject4`
//!   does, sampling the [`Vram`] by each packet's TSB and CBA (the TIMs given are placed at
//!   their own VRAM positions first). Nothing of the packet is left out but what is listed
//!   under "Left out".
//! - **HMD, P3D LODs and glTF**: through the neutral [`crate::scene::Scene`] ([`scene`]): the
//!   scene posed at each picture's time, its vertices rounded to the console's 16-bit
//!   integers, then RTPS, NCLIP culling (unless double-sided), the ordering table and the same
//!   rasterizer, its textures as [`Image15`] images ([`Texture::Image`]); HMD lit by its
//!   normals, P3D and glTF flat-shaded by the fixed light. What each path draws and leaves
//!   out: [`scene`] and `sources` (the table of inputs). Point caches are refused.
//! - **Files written** ([`encode`]): PNG, animated PNG, GIF (animated), WebP (animated WebP).
//!
//! # The console's rules, and the readings taken
//! - **Camera** ([`View`]): a libgs program with `GsSetProjection(H)`, H = the smaller side of
//!   the picture (a 53° field of view across it), and the screen centre as OFX/OFY. The view
//!   matrix is `RotMatrix(pitch, yaw, 0)` (4096 = 360°) scaled by a power of the 4.12 scale
//!   that makes the model's bounds fill depths up to about 60,000 (Z precision for the OT);
//!   the translation puts the bounds' centre at the framing distance, where the bounding
//!   sphere spans 90 % of the smaller side. Objects' world matrices are composed with it by
//!   `CompMatrix` ([`crate::formats::gte::compose`]).
//! - **Projection** ([`gte::rtps`]): RTPS with the GTE's saturations and its UNR division.
//! - **Ordering table**: the OT index is AVSZ3/AVSZ4 (InitGeom's ZSF3/ZSF4, average Z / 4, a
//!   14-bit value) shifted right by 2 into a 12-bit OT (`GsSortObject4(…, 14 − 12)`), clamped
//!   to it. The GPU walks a reverse-cleared OT (`ClearOTagR`) from the far end; `AddPrim`
//!   puts a packet at the head of its bucket's list, so within a bucket the packet inserted
//!   last is drawn first. No depth buffer: what is drawn later covers what was drawn earlier.
//! - **Culling**: NCLIP on the first three corners; a polygon with NCLIP ≤ 0 is a back face and
//!   is not drawn unless its packet has FCE. Polygons with a corner nearer than H/2 (where the
//!   GTE's division overflows) are not drawn, with a note.
//! - **Light** ([`gte::Lights`]): libgs's flat-light model: one light from the viewer's
//!   upper left, behind the viewer (direction (−1, −1, −2)/√6 in camera space, towards the light), colour
//!   0.75 (`GsSetFlatLight` 192, 192, 192), ambient 0.25 (`GsSetAmbient(ONE/4, …)`), both
//!   fixed; the light matrix is turned into each object's model space, as `GsSetLightMatrix`
//!   does with the object's matrix. Lit packets are lit by NCCS per normal (flat: one
//!   normal; Gouraud: one per corner); textured lit packets start from colour 128 (×1);
//!   unlit (LGT) packets keep their colours.
//! - **Rasterizer**: [`raster`] (edges, affine interpolation, texels, modulation, blending).
//! - **Output**: the 15-bit framebuffer, each channel expanded to 8 bits as
//!   `(x << 3) | (x >> 2)`.
//!
//! # Left out
//! Dithering (libgs's `GsInitGraph` may turn it on: the picture shows the undithered colours);
//! lines and sprites (counted in a note); the texture window; the lights, cameras and
//! ambient colour a TOD or HMD animates (the fixed light and camera above are used); depth
//! cueing (fog); the GTE's 32-bit MAC0 overflow for vertices far off screen (see [`gte`]).

pub mod encode;
mod file;
pub mod gte;
pub mod mime;
pub mod raster;
pub mod scene;
mod sources;
mod tmd;

use std::cmp::Reverse;

use crate::formats::gte::{compose, rot_matrix, Mat};
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::Tmd;
use crate::report::Note;
use crate::vram::Vram;

pub use file::{
    render_file, render_model, Input, OutputKind, Preview, RenderOptions, Rendered, MAX_FRAMES,
};
pub use raster::{Corner, Framebuffer, Image15, Poly, Texels, Texture};

/// OT length in bits (a libgs `GsOT` of 4096 entries).
pub const OT_BITS: u32 = 12;

/// Where the camera looks from and what the picture is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Turn about the vertical axis, degrees. `None` (the default): the three-quarter view
    /// (45°, 135°, 225° or 315°) that shows the most front-facing polygon area, 45° on a tie.
    pub yaw: Option<f64>,
    /// Tilt, degrees; positive looks down on the model (default 30).
    pub pitch: f64,
    /// Distance as a multiple of the framing distance (default 1: the bounds fill the picture).
    pub distance: f64,
    /// Picture width in pixels (default 256).
    pub width: u32,
    /// Picture height in pixels (default 256).
    pub height: u32,
    /// Background colour, 8-bit RGB (cut to 15 bits as the framebuffer is).
    pub background: [u8; 3],
}

impl Default for View {
    fn default() -> Self {
        View {
            yaw: None,
            pitch: 30.0,
            distance: 1.0,
            width: 256,
            height: 256,
            background: [64, 64, 64],
        }
    }
}

/// The largest picture side drawn (the GPU's drawing area is at most 1024 × 512; larger
/// pictures are allowed up to this bound, drawn by the same rules).
pub const MAX_SIDE: u32 = 4096;

/// The camera a [`View`] gives for a model's bounds: the view matrix, the screen set-up and
/// the view's rotation (for the lights).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// World → camera (the model's units, scaled; 4096 = 1.0).
    pub matrix: Mat,
    /// Projection distance and screen centre.
    pub screen: gte::Screen,
    rotation: [[f64; 3]; 3],
}

impl Camera {
    /// Frames `bounds` (`[min, max]` in world units) from `view`.
    pub fn frame(bounds: [[f64; 3]; 2], view: &View) -> Camera {
        let h = view.width.min(view.height).max(1);
        let screen = gte::Screen {
            h,
            ofx: (view.width / 2) as i32,
            ofy: (view.height / 2) as i32,
        };
        let angle = |deg: f64| ((deg / 360.0 * 4096.0).round() as i64).rem_euclid(4096) as i16;
        let mut m = Mat::IDENTITY;
        rot_matrix(
            [angle(view.pitch), angle(view.yaw.unwrap_or(45.0)), 0],
            &mut m,
        );
        let rotation = m.m.map(|r| r.map(|e| f64::from(e) / 4096.0));
        let centre: [f64; 3] = std::array::from_fn(|i| (bounds[0][i] + bounds[1][i]) / 2.0);
        let radius = (0..3)
            .map(|i| (bounds[1][i] - bounds[0][i]).powi(2))
            .sum::<f64>()
            .sqrt()
            / 2.0;
        // The bounding sphere spans 90 % of the smaller side: r·H/D = 0.45·H.
        let k = view.distance.max(0.0) / 0.45;
        let scale = if radius > 0.0 {
            (60_000.0 / (radius * (k + 1.0))).min(7.99)
        } else {
            1.0
        };
        let s = ((scale * 4096.0) as i32).clamp(1, 32767);
        for row in &mut m.m {
            for e in row.iter_mut() {
                *e = ((i32::from(*e) * s) >> 12) as i16;
            }
        }
        let depth = if radius > 0.0 {
            k * radius * f64::from(s) / 4096.0
        } else {
            f64::from(h)
        };
        for i in 0..3 {
            let c: f64 = (0..3)
                .map(|j| f64::from(m.m[i][j]) * centre[j])
                .sum::<f64>()
                / 4096.0;
            let target = if i == 2 { depth } else { 0.0 };
            m.t[i] = (target - c).round().clamp(-2e9, 2e9) as i32;
        }
        Camera {
            matrix: m,
            screen,
            rotation,
        }
    }

    /// The light registers for an object whose world rotation is `world` (4096 = 1.0).
    pub fn lights(&self, world: &[[i16; 3]; 3]) -> gte::Lights {
        // Towards the light, in camera space: from behind the viewer, above and to the left.
        let k = -1.0 / 6f64.sqrt();
        let towards = [k, k, 2.0 * k];
        // Model space: (view · world)ᵀ · towards.
        let w = world.map(|r| r.map(|e| f64::from(e) / 4096.0));
        let vw: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| self.rotation[i][k] * w[k][j]).sum())
        });
        let dir: [f64; 3] = std::array::from_fn(|j| (0..3).map(|i| vw[i][j] * towards[i]).sum());
        let row = dir.map(|d| (d * 4096.0).round().clamp(-32768.0, 32767.0) as i16);
        gte::Lights {
            llm: [row, [0; 3], [0; 3]],
            lcm: [[3072, 0, 0], [3072, 0, 0], [3072, 0, 0]],
            bk: [1024; 3],
        }
    }
}

/// Puts the draw list in the order the GPU draws it from the ordering table: far buckets
/// first; within a bucket, the polygon inserted last first.
pub fn ordering_table(polys: &mut [Poly]) {
    polys.reverse();
    let last = (1i32 << OT_BITS) - 1;
    polys.sort_by_key(|p| Reverse((p.otz >> (14 - OT_BITS)).clamp(0, last)));
}

/// A TMD object shown with a world matrix: `(object index, world)`.
pub type Instance = (usize, Mat);

/// The bounds of the TMD objects shown, in world units: `[min, max]`, or `None` without
/// vertices.
pub fn tmd_bounds(tmd: &Tmd, shown: &[Instance]) -> Option<[[f64; 3]; 2]> {
    let mut b: Option<[[f64; 3]; 2]> = None;
    for (i, w) in shown {
        let Some(o) = tmd.objects.get(*i) else {
            continue;
        };
        for v in &o.vertices {
            let p = [v.x, v.y, v.z].map(f64::from);
            let q: [f64; 3] = std::array::from_fn(|i| {
                (0..3).map(|j| f64::from(w.m[i][j]) * p[j]).sum::<f64>() / 4096.0
                    + f64::from(w.t[i])
            });
            let e = b.get_or_insert([q, q]);
            for i in 0..3 {
                e[0][i] = e[0][i].min(q[i]);
                e[1][i] = e[1][i].max(q[i]);
            }
        }
    }
    b
}

/// The bounds holding every one of `all` (`[[0; 3]; 2]` when none has any): what one camera
/// frames for every picture of an animation.
pub(crate) fn union_bounds(all: impl IntoIterator<Item = Option<[[f64; 3]; 2]>>) -> [[f64; 3]; 2] {
    let mut bounds: Option<[[f64; 3]; 2]> = None;
    for b in all.into_iter().flatten() {
        let e = bounds.get_or_insert(b);
        for i in 0..3 {
            e[0][i] = e[0][i].min(b[0][i]);
            e[1][i] = e[1][i].max(b[1][i]);
        }
    }
    bounds.unwrap_or([[0.0; 3]; 2])
}

/// Drawing work spent against a budget ([`crate::Limits::max_render_work`], or
/// [`crate::Limits::max_preview_work`] for a report's preview), counted by [`raster::work`]
/// before each picture is drawn. The first picture's work times the number of pictures is
/// judged before anything is drawn, so an animation that cannot fit fails at once; then the
/// work actually spent is counted picture by picture.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    spent: u64,
    drawn: u64,
    pictures: u64,
    limit: u64,
    field: &'static str,
}

impl Budget {
    /// The budget of a render of `pictures` pictures with `opts` (a preview's when
    /// `opts.preview` is set).
    pub(crate) fn of(opts: &RenderOptions, pictures: usize) -> Budget {
        if opts.preview.is_some() {
            Budget::preview(&opts.limits, pictures)
        } else {
            Budget::new("max_render_work", opts.limits.max_render_work, pictures)
        }
    }

    /// The budget of one preview of `pictures` pictures in a report.
    pub(crate) fn preview(limits: &crate::Limits, pictures: usize) -> Budget {
        Budget::new("max_preview_work", limits.max_preview_work, pictures)
    }

    fn new(field: &'static str, limit: u64, pictures: usize) -> Budget {
        Budget {
            spent: 0,
            drawn: 0,
            pictures: pictures as u64,
            limit,
            field,
        }
    }

    /// Spends the work of drawing `polys` into `view`'s picture; an error, that picture not
    /// drawn, once the total (for the first picture: its work times the pictures) passes the
    /// limit.
    pub(crate) fn spend(&mut self, polys: &[Poly], view: &View) -> crate::Result<()> {
        let work = raster::work(polys, view.width as usize, view.height as usize);
        let (what, requested) = if self.drawn == 0 && self.pictures > 1 {
            (
                format!(
                    "the drawing's work, about {work} pixels visited plus polygons for each of {} pictures",
                    self.pictures
                ),
                work.saturating_mul(self.pictures),
            )
        } else {
            let total = self.spent.saturating_add(work);
            (
                format!(
                    "the drawing's work, pixels visited plus polygons, up to picture {} of {}",
                    self.drawn + 1,
                    self.pictures.max(1)
                ),
                total,
            )
        };
        crate::limits::budget(&what, self.field, requested, self.limit)?;
        self.spent = self.spent.saturating_add(work);
        self.drawn += 1;
        Ok(())
    }
}

/// The TMD objects `shown` as the GPU's draw list, in ordering-table order, and the notes.
fn tmd_draw_list(
    tmd: &Tmd,
    shown: &[Instance],
    vram: &Vram,
    camera: &Camera,
) -> (Vec<Poly>, Vec<Note>) {
    let placed = placed(shown, camera);
    let mut polys = Vec::new();
    let mut notes = Counts::default();
    tmd::polys(tmd, &placed, &camera.screen, vram, &mut polys, &mut notes);
    ordering_table(&mut polys);
    (polys, notes.finish())
}

fn fill(polys: &[Poly], vram: &Vram, view: &View) -> Framebuffer {
    let mut fb = Framebuffer::new(view.width as usize, view.height as usize, view.background);
    raster::draw(&mut fb, polys, &Texels { vram, images: &[] });
    fb
}

/// Draws the TMD objects `shown` with `camera` into a
/// new framebuffer, sampling `vram`. Returns the frame and its notes.
pub fn draw_tmd(
    tmd: &Tmd,
    shown: &[Instance],
    vram: &Vram,
    camera: &Camera,
    view: &View,
) -> (Framebuffer, Vec<Note>) {
    let (polys, notes) = tmd_draw_list(tmd, shown, vram, camera);
    (fill(&polys, vram, view), notes)
}

/// [`draw_tmd`] within `budget`.
pub(crate) fn draw_tmd_within(
    tmd: &Tmd,
    shown: &[Instance],
    vram: &Vram,
    (camera, view): (&Camera, &View),
    budget: &mut Budget,
) -> crate::Result<(Framebuffer, Vec<Note>)> {
    let (polys, notes) = tmd_draw_list(tmd, shown, vram, camera);
    budget.spend(&polys, view)?;
    Ok((fill(&polys, vram, view), notes))
}

/// The objects of a TMD at rest, the view with its yaw chosen and its camera.
fn at_rest(tmd: &Tmd, vram: &Vram, view: &View) -> (Vec<Instance>, View, Camera) {
    let shown: Vec<Instance> = (0..tmd.objects.len()).map(|i| (i, Mat::IDENTITY)).collect();
    let bounds = tmd_bounds(tmd, &shown).unwrap_or([[0.0; 3]; 2]);
    let view = with_yaw(view, |v| {
        front_area(tmd, &shown, vram, &Camera::frame(bounds, v))
    });
    let camera = Camera::frame(bounds, &view);
    (shown, view, camera)
}

/// A TMD at rest (every object at the identity), framed by `view`.
pub fn render_tmd(tmd: &Tmd, vram: &Vram, view: &View) -> (Framebuffer, Vec<Note>) {
    let (shown, view, camera) = at_rest(tmd, vram, view);
    draw_tmd(tmd, &shown, vram, &camera, &view)
}

/// [`render_tmd`] within `budget`.
pub(crate) fn render_tmd_within(
    tmd: &Tmd,
    vram: &Vram,
    view: &View,
    budget: &mut Budget,
) -> crate::Result<(Framebuffer, Vec<Note>)> {
    let (shown, view, camera) = at_rest(tmd, vram, view);
    draw_tmd_within(tmd, &shown, vram, (&camera, &view), budget)
}

/// `view` with its yaw chosen when unset: the three-quarter view (45°, 135°, 225°, 315°, in
/// this order on a tie) whose `area` is largest; when none from above shows anything, the same
/// from below (the pitch negated).
pub fn with_yaw(view: &View, area: impl Fn(&View) -> i64) -> View {
    if view.yaw.is_some() {
        return *view;
    }
    let mut best = (0, *view);
    for pitch in [view.pitch, -view.pitch] {
        for yaw in [45.0, 135.0, 225.0, 315.0] {
            let v = View {
                yaw: Some(yaw),
                pitch,
                ..*view
            };
            let a = area(&v);
            if a > best.0 {
                best = (a, v);
            }
        }
        if best.0 > 0 {
            return best.1;
        }
    }
    View {
        yaw: Some(45.0),
        ..*view
    }
}

/// Twice the screen area of the polygons `camera` would draw (front faces and FCE packets).
pub fn front_area(tmd: &Tmd, shown: &[Instance], vram: &Vram, camera: &Camera) -> i64 {
    let placed = placed(shown, camera);
    let mut polys = Vec::new();
    tmd::polys(
        tmd,
        &placed,
        &camera.screen,
        vram,
        &mut polys,
        &mut Counts::default(),
    );
    polys.iter().map(poly_area).sum()
}

/// Twice a polygon's screen area.
fn poly_area(p: &Poly) -> i64 {
    let c = &p.corners;
    let tri = |a: &Corner, b: &Corner, d: &Corner| {
        (i64::from(b.x - a.x) * i64::from(d.y - a.y) - i64::from(d.x - a.x) * i64::from(b.y - a.y))
            .abs()
    };
    tri(&c[0], &c[1], &c[2])
        + if p.count == 4 {
            tri(&c[1], &c[3], &c[2])
        } else {
            0
        }
}

fn placed(shown: &[Instance], camera: &Camera) -> Vec<tmd::Placed> {
    shown
        .iter()
        .map(|&(object, w)| tmd::Placed {
            object,
            matrix: compose(&camera.matrix, &w),
            lights: camera.lights(&w.m),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat triangle with corners at the given screen points.
    fn tri(points: [(i32, i32); 3]) -> Poly {
        let mut corners = [Corner::default(); 4];
        for (c, (x, y)) in corners.iter_mut().zip(points) {
            (c.x, c.y) = (x, y);
        }
        Poly {
            corners,
            count: 3,
            texture: Texture::None,
            gouraud: false,
            raw_texture: false,
            blend: None,
            otz: 0,
        }
    }

    #[test]
    fn work_counts_the_box_each_triangle_visits_on_the_picture() {
        // 10 × 10 box inside a 32 × 32 picture, plus the polygon.
        assert_eq!(raster::work(&[tri([(0, 0), (9, 0), (0, 9)])], 32, 32), 101);
        // Clipped to the picture: 32 × 32 + 1, however far the corners reach.
        let huge = tri([(-5000, -5000), (5000, -5000), (0, 5000)]);
        assert_eq!(raster::work(&[huge], 32, 32), 1025);
        assert_eq!(raster::work(&[huge, huge], 32, 32), 2050);
    }

    #[test]
    fn a_budget_judges_the_first_picture_times_the_pictures_then_counts() {
        let view = View {
            width: 32,
            height: 32,
            ..View::default()
        };
        let polys = [tri([(0, 0), (9, 0), (0, 9)])];
        // 3 pictures of 101: 303 fits a limit of 303, the first judged as 3 × 101.
        let mut b = Budget::new("max_render_work", 303, 3);
        for _ in 0..3 {
            b.spend(&polys, &view).unwrap();
        }
        // A fourth picture the count did not foresee passes it, and is refused by name.
        let e = b.spend(&polys, &view).unwrap_err().to_string();
        assert!(
            e.contains("up to picture 4 of 3 (max_render_work) asks for 404"),
            "{e}"
        );
        // Foreseen: refused before the first picture is drawn.
        let mut b = Budget::new("max_preview_work", 302, 3);
        let e = b.spend(&polys, &view).unwrap_err().to_string();
        assert!(
            e.contains("about 101 pixels visited plus polygons for each of 3 pictures (max_preview_work) asks for 303, the limit is 302"),
            "{e}"
        );
    }
}
