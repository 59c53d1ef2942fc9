//! The report of `tevscope bench` (and `--json`): CPU, uniform-update and GPU frame times.

use serde::{Deserialize, Serialize};

/// Timings of `tevscope bench`. Reads back too (`examples/ab_bench.rs` compares builds),
/// fields an older build's report lacks as zero.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchReport {
    pub file: String,
    pub adapter: String,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub surfaces: usize,
    pub triangles: usize,
    /// "specialized" or "uber".
    pub shader: String,
    /// Blending done exactly in the shader (`--exact-blend`).
    pub exact_blend: bool,
    /// From opening the file to the first frame drawn (whatever pipelines are ready then,
    /// the ubershader for the rest), GPU device already created (ms).
    pub first_frame_ms: f64,
    /// CPU time per frame before submission (ms): the update, draw lists and command
    /// recording, wgpu's per-command costs included.
    pub cpu_ms_mean: f64,
    pub cpu_ms_median: f64,
    /// The per-frame uniform update within `cpu_ms` (ms): UV animations, lights, transforms
    /// and channel registers of every uniform block, staged for upload.
    pub update_ms_mean: f64,
    pub update_ms_median: f64,
    /// Submission to GPU idle per frame (ms): the GPU's frame time as the host sees it.
    pub gpu_ms_mean: f64,
    pub gpu_ms_median: f64,
    /// Frames per second from the whole frame (CPU + GPU) time.
    pub fps_mean: f64,
    pub fps_median: f64,
    /// The last frame's draw calls, uniform blocks uploaded and target copies (for shaders
    /// blending themselves): the per-draw and per-upload work behind the times.
    pub draws: usize,
    pub uniform_blocks_uploaded: usize,
    pub destination_copies: usize,
}

/// Per-frame samples of a bench run, in ms.
#[derive(Debug, Default)]
pub struct FrameSamples {
    /// Before submission (`cpu_ms`), the uniform update within it, submission to GPU idle,
    /// and the whole frame.
    pub cpu: Vec<f64>,
    pub update: Vec<f64>,
    pub gpu: Vec<f64>,
    pub total: Vec<f64>,
}

impl BenchReport {
    /// The report with its timing fields summarised from `s` (fps from the whole frame).
    pub fn with_times(mut self, mut s: FrameSamples) -> Self {
        (self.cpu_ms_mean, self.cpu_ms_median) = mean_median(&mut s.cpu);
        (self.update_ms_mean, self.update_ms_median) = mean_median(&mut s.update);
        (self.gpu_ms_mean, self.gpu_ms_median) = mean_median(&mut s.gpu);
        let (total_mean, total_median) = mean_median(&mut s.total);
        self.fps_mean = 1000.0 / total_mean.max(1e-9);
        self.fps_median = 1000.0 / total_median.max(1e-9);
        self
    }

    pub fn text(&self) -> String {
        format!(
            "{} on {}: {} frames at {}×{} ({} surfaces, {} triangles, {} shaders{})\n  first frame {:.1} ms after opening\n  CPU frame   mean {:.3} ms, median {:.3} ms\n    of which uniform update  mean {:.3} ms, median {:.3} ms\n  GPU frame   mean {:.3} ms, median {:.3} ms\n  FPS         mean {:.1}, median {:.1}\n  last frame  {} draws, {} uniform blocks uploaded, {} target copies\n",
            self.file,
            self.adapter,
            self.frames,
            self.width,
            self.height,
            self.surfaces,
            self.triangles,
            self.shader,
            if self.exact_blend {
                ", exact blending"
            } else {
                ""
            },
            self.first_frame_ms,
            self.cpu_ms_mean,
            self.cpu_ms_median,
            self.update_ms_mean,
            self.update_ms_median,
            self.gpu_ms_mean,
            self.gpu_ms_median,
            self.fps_mean,
            self.fps_median,
            self.draws,
            self.uniform_blocks_uploaded,
            self.destination_copies
        )
    }
}

/// Mean and median of `v` (sorted in place); zeros when empty.
pub fn mean_median(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) * 0.5
    };
    (mean, median)
}

pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::BenchReport;

    #[test]
    fn reports_read_back_and_older_ones_lack_fields_as_zero() {
        let report = BenchReport {
            file: "stress.pak:stress_room".into(),
            draws: 237,
            ..BenchReport::default()
        }
        .with_times(super::FrameSamples {
            cpu: vec![0.1, 0.08, 0.09],
            update: vec![0.01],
            gpu: vec![12.0, 14.0],
            total: vec![12.5, 14.5],
        });
        let json = serde_json::to_string(&report).expect("serializes");
        let back: BenchReport = serde_json::from_str(&json).expect("reads back");
        assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
        assert_eq!((back.cpu_ms_median, back.draws), (0.09, 237));
        // A build from before `draws` and the other counts were reported.
        let older = r#"{"file": "a.pak:room", "cpu_ms_median": 0.157, "fps_median": 30.7}"#;
        let older: BenchReport = serde_json::from_str(older).expect("older report");
        assert_eq!(
            (older.cpu_ms_median, older.fps_median, older.draws),
            (0.157, 30.7, 0)
        );
    }
}
