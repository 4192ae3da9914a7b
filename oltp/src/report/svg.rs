//! SVG: the chart of a report: QPS and RT (average event latency) against
//! threads, one line per mode (encryption x TLS), from the summary's medians.
//! Threads are on a log axis labelled at the measured counts only (1, 8, 32
//! spaced by their ratios, not from 0); the figures' axis prints `50,000`, not
//! `50000.0`.

use plotters::prelude::*;

use super::summary::SummaryRow;

/// Reads one figure of a summary row.
type Figure = fn(&SummaryRow) -> f64;

/// Chart size in pixels (two panels side by side).
const SIZE: (u32, u32) = (1100, 440);

/// The x axis of the thread counts `threads`, for a log scale: its range
/// (the smallest count / 1.25 to the largest x 1.25; / 2 and x 2 around a
/// single count) and its labelled points (each distinct count, in order).
pub fn thread_axis(threads: &[u32]) -> (std::ops::Range<f64>, Vec<f64>) {
    let mut xs: Vec<f64> = threads.iter().map(|&t| f64::from(t.max(1))).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let (lo, hi) = (
        xs.first().copied().unwrap_or(1.0),
        xs.last().copied().unwrap_or(1.0),
    );
    let margin = if hi > lo { 1.25 } else { 2.0 };
    ((lo / margin)..(hi * margin), xs)
}

/// The label of a point of the [`thread_axis`]: the thread count, `8`.
pub fn thread_label(x: f64) -> String {
    format!("{}", x.round() as u64)
}

/// A value axis label for an axis `span` wide (its top minus its bottom, in
/// the figure's unit): whole numbers with thousands separators from a span of
/// 10 on (`50,000`, `0`, `-5`), at most one decimal from 1, two below
/// (`0.25`), without trailing zeros (`0`, `0.2`, never `0.0`).
pub fn axis_label(y: f64, span: f64) -> String {
    let decimals = if span >= 10.0 {
        0
    } else if span >= 1.0 {
        1
    } else {
        2
    };
    let s = encbench_common::number::thousands(y, decimals);
    // Zero has no sign there (`-0.001` is `0.00`), so trimming leaves `0`.
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

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
        let threads: Vec<u32> = rows.iter().map(|r| r.threads).collect();
        let (x_range, x_points) = thread_axis(&threads);
        let panels: [(&DrawingArea<_, _>, &str, Figure); 2] = [
            (&left, "QPS (median)", |r| r.qps.median),
            (&right, "RT avg, ms (median)", |r| r.rt_ms.median),
        ];
        for (area, label, value) in panels {
            let top = (rows.iter().map(value).fold(0.0, f64::max) * 1.1).max(1e-9);
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{workload}: {label}"), ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d(
                    x_range
                        .clone()
                        .log_scale()
                        .with_key_points(x_points.clone()),
                    0.0..top,
                )
                .map_err(|e| format!("chart: {e}"))?;
            chart
                .configure_mesh()
                .x_desc("threads (log scale)")
                .y_desc(label)
                .x_label_formatter(&|x| thread_label(*x))
                .y_label_formatter(&|y| axis_label(*y, top))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_whole_numbers_with_thousands_separators() {
        assert_eq!(axis_label(50_000.0, 120_000.0), "50,000");
        assert_eq!(axis_label(0.0, 120_000.0), "0");
        assert_eq!(axis_label(1_234_567.8, 2e6), "1,234,568");
        assert_eq!(axis_label(-5.0, 40.0), "-5");
        assert_eq!(axis_label(-0.2, 40.0), "0");
        assert_eq!(axis_label(1.5, 4.0), "1.5");
        assert_eq!(axis_label(0.25, 0.6), "0.25");
        assert_eq!(axis_label(0.0, 1.1), "0");
        assert_eq!(axis_label(0.2, 1.1), "0.2");
        assert_eq!(axis_label(-0.001, 0.5), "0");
    }

    #[test]
    fn threads_sit_on_a_log_axis_labelled_at_the_measured_counts() {
        let (range, points) = thread_axis(&[8, 1, 32, 8]);
        assert_eq!(points, [1.0, 8.0, 32.0]);
        assert_eq!((range.start, range.end), (0.8, 40.0));
        let labels: Vec<String> = points.iter().map(|&x| thread_label(x)).collect();
        assert_eq!(labels, ["1", "8", "32"]);
        // One thread count alone still gets an axis around it.
        let (range, points) = thread_axis(&[4]);
        assert_eq!((range.start, range.end, points), (2.0, 8.0, vec![4.0]));
    }

    #[test]
    fn the_chart_prints_the_labels_not_decimals() {
        let row = |threads: u32, qps: f64| {
            let mut x = crate::report::model::fixtures::run(
                crate::report::model::fixtures::settings(threads, "none"),
                10,
                0,
            );
            x.qps = qps;
            x
        };
        let rows = crate::report::summary::summary(&[
            row(1, 12_000.0),
            row(8, 50_000.0),
            row(32, 48_000.0),
        ]);
        let chart = svg(&rows).expect("svg");
        for label in [">\n1\n<", ">\n8\n<", ">\n32\n<", ">\n50,000\n<", ">\n0\n<"] {
            assert!(chart.contains(label), "{label}: {chart}");
        }
        assert!(!chart.contains("50000.0"), "{chart}");
        assert!(!chart.contains(">\n0.0\n<"), "{chart}");
    }
}
