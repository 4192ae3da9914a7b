//! SVG: the chart of a report: QPS and RT (average event latency) against
//! threads, one line per mode (encryption x TLS), from the summary's medians.

use plotters::prelude::*;

use super::summary::SummaryRow;

/// Reads one figure of a summary row.
type Figure = fn(&SummaryRow) -> f64;

/// Chart size in pixels (two panels side by side).
const SIZE: (u32, u32) = (1100, 440);

/// The chart as an SVG document.
///
/// # Errors
/// Drawing failed (the message says where).
pub fn svg(rows: &[SummaryRow]) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| format!("chart: {e}"))?;
        let (left, right) = root.split_horizontally(SIZE.0 / 2);
        let mut modes: Vec<&str> = Vec::new();
        for r in rows {
            if !modes.contains(&r.mode.as_str()) {
                modes.push(&r.mode);
            }
        }
        let workload = rows.first().map_or("", |r| r.workload.as_str());
        let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1);
        let panels: [(&DrawingArea<_, _>, &str, Figure); 2] = [
            (&left, "QPS (median)", |r| r.qps.median),
            (&right, "RT avg, ms (median)", |r| r.rt_ms.median),
        ];
        for (area, label, value) in panels {
            let top = rows.iter().map(value).fold(0.0, f64::max) * 1.1;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{workload}: {label}"), ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d(0.0..f64::from(max_threads) * 1.05, 0.0..top.max(1e-9))
                .map_err(|e| format!("chart: {e}"))?;
            chart
                .configure_mesh()
                .x_desc("threads")
                .y_desc(label)
                .draw()
                .map_err(|e| format!("chart: {e}"))?;
            for (i, mode) in modes.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let mut pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.mode == *mode)
                    .map(|r| (f64::from(r.threads), value(r)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart
                    .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(|e| format!("chart: {e}"))?
                    .label(*mode)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(|e| format!("chart: {e}"))?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::LowerRight)
                .draw()
                .map_err(|e| format!("chart: {e}"))?;
        }
        root.present().map_err(|e| format!("chart: {e}"))?;
    }
    Ok(out)
}
