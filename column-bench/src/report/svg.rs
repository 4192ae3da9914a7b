//! The SVG chart: ns per value against value size, one line per backend
//! and algorithm.

use super::Report;
use crate::error::{Error, Result};

impl Report {
    /// The SVG chart: ns per value (open, key reused, envelope, one thread, one
    /// value at a time) against value size, one line per backend and algorithm.
    ///
    /// # Errors
    /// Drawing fails.
    pub fn to_svg(&self) -> Result<String> {
        use encbench_common::svg;
        use plotters::prelude::*;
        let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for r in self.results.iter().filter(|r| r.is_reference()) {
            let name = format!("{}:{}", r.backend, r.algorithm);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((r.value_bytes, r.ns_per_value)),
                None => series.push((name, vec![(r.value_bytes, r.ns_per_value)])),
            }
        }
        for (_, pts) in &mut series {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let x_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.0))
            .fold(1.0f64, f64::max);
        let y_max = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.1))
            .fold(1.0f64, f64::max);
        let frame = svg::Frame {
            caption: "column-bench: open, key reused, envelope path, one thread",
            margin: 15,
            x_label_area: 45,
            y_label_area: 60,
        };
        svg::line_chart(
            (900, 560),
            frame,
            (0.0..x_max * 1.1, 0.0..y_max * 1.15),
            ("value size (bytes)", "ns per value"),
            |chart| {
                for (i, (name, pts)) in series.iter().enumerate() {
                    let color = Palette99::pick(i).to_rgba();
                    chart
                        .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                        .label(name.clone())
                        .legend(svg::legend_line(color));
                    chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
                }
                Ok(())
            },
        )
        .map_err(svg_err)
    }
}

fn svg_err(e: impl std::fmt::Display) -> Error {
    Error::Output {
        format: "svg",
        detail: e.to_string(),
    }
}
