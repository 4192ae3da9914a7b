//! The reproduction's own chart (plotters, as oltp's `--svg`): our effect
//! (median paired change, percent) against threads for each series, its
//! interval as a vertical bar, and the published figures as crosses; threads
//! on oltp's log axis labelled at the measured counts, the change in whole
//! percent (`encbench_oltp::report::svg::axis_label`). The
//! curves themselves (QPS and RT medians per mode) are oltp's chart
//! (`encbench_oltp::report::svg`).

use plotters::prelude::*;

use encbench_oltp::report::svg::{axis_label, thread_axis, thread_label};

/// One point of a series: threads, median change, interval (percent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Threads (connections).
    pub threads: u32,
    /// Median change, percent.
    pub median: f64,
    /// Interval, percent (equal to `median` with 1 round).
    pub lo: f64,
    /// Interval's upper end, percent.
    pub hi: f64,
}

/// A named series of points.
#[derive(Clone, Debug)]
pub struct Series {
    /// Its label in the legend.
    pub label: String,
    /// Its points.
    pub points: Vec<Point>,
}

/// Chart size in pixels.
const SIZE: (u32, u32) = (760, 420);

/// The chart as an SVG document: `title`, `y_desc` (the metric's change),
/// our `series`, and `published` (label, threads, percent) as crosses.
///
/// # Errors
/// Drawing failed (the message says where).
pub fn effect_chart(
    title: &str,
    y_desc: &str,
    series: &[Series],
    published: &[(String, u32, f64)],
) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| format!("chart: {e}"))?;
        let ys = series
            .iter()
            .flat_map(|s| s.points.iter().flat_map(|p| [p.lo, p.hi]))
            .chain(published.iter().map(|p| p.2))
            .chain([0.0]);
        let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
        let pad = ((hi - lo) * 0.1).max(1.0);
        let threads: Vec<u32> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.threads))
            .chain(published.iter().map(|p| p.1))
            .collect();
        let (x_range, x_points) = thread_axis(&threads);
        let (bottom, top) = (lo - pad, hi + pad);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x_range.log_scale().with_key_points(x_points), bottom..top)
            .map_err(|e| format!("chart: {e}"))?;
        chart
            .configure_mesh()
            .x_desc("threads (connections, log scale)")
            .y_desc(y_desc)
            .x_label_formatter(&|x| thread_label(*x))
            .y_label_formatter(&|y| axis_label(*y, top - bottom))
            .draw()
            .map_err(|e| format!("chart: {e}"))?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .map(|p| (f64::from(p.threads), p.median))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| format!("chart: {e}"))?
                .label(s.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            chart
                .draw_series(s.points.iter().map(|p| {
                    let x = f64::from(p.threads);
                    PathElement::new(vec![(x, p.lo), (x, p.hi)], color.stroke_width(1))
                }))
                .map_err(|e| format!("chart: {e}"))?;
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                .map_err(|e| format!("chart: {e}"))?;
        }
        for (label, t, y) in published {
            let drawn = chart
                .draw_series(std::iter::once(Cross::new(
                    (f64::from(*t), *y),
                    6,
                    BLACK.stroke_width(2),
                )))
                .map_err(|e| format!("chart: {e}"))?;
            if !label.is_empty() {
                drawn
                    .label(label.as_str())
                    .legend(|(x, y)| Cross::new((x + 10, y), 5, BLACK.stroke_width(2)));
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| format!("chart: {e}"))?;
        root.present().map_err(|e| format!("chart: {e}"))?;
    }
    Ok(out)
}

/// The points of oltp `comparisons` for `metric` whose variant is `variant`
/// (by its first word), in thread order; a comparison of 1 round has no
/// interval and is left out (1 round prints no %).
pub fn points(
    comparisons: &[encbench_oltp::report::MetricComparison],
    metric: &str,
    variant: &str,
) -> Vec<Point> {
    let mut pts: Vec<Point> = comparisons
        .iter()
        .filter(|c| {
            c.comparison.metric == metric && c.comparison.variant.split(' ').next() == Some(variant)
        })
        .filter_map(|c| {
            Some(Point {
                threads: c.threads,
                median: c.comparison.median_change_pct,
                lo: c.comparison.ci95_low_pct?,
                hi: c.comparison.ci95_high_pct?,
            })
        })
        .collect();
    pts.sort_by_key(|p| p.threads);
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_series_intervals_and_published_crosses() {
        let s = Series {
            label: "ours".into(),
            points: vec![
                Point {
                    threads: 1,
                    median: 10.0,
                    lo: 8.0,
                    hi: 12.0,
                },
                Point {
                    threads: 8,
                    median: 20.0,
                    lo: 15.0,
                    hi: 25.0,
                },
            ],
        };
        let svg =
            effect_chart("t", "RT change %", &[s], &[("published".into(), 8, 16.9)]).expect("svg");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(svg.contains("published") && svg.contains("ours"));
        // Threads labelled where measured (log axis), whole percents.
        for label in [">\n1\n<", ">\n8\n<", ">\n20\n<"] {
            assert!(svg.contains(label), "{label}: {svg}");
        }
        assert!(!svg.contains(".0\n<"), "{svg}");
    }
}
