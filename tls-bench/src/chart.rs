//! SVG charts (plotters): average round trip against connections per
//! transport, and full-handshake rate per transport.

use std::path::Path;

use encbench_common::svg;
use plotters::prelude::*;

use crate::error::{Error, Result};
use crate::report::Report;

const COLORS: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

/// Writes a chart atomically: a failed run never leaves half a chart.
fn write_svg(path: &Path, svg: &str) -> Result<()> {
    Ok(encbench_common::output::write_atomically(
        path,
        svg.as_bytes(),
        "--svg-dir",
    )?)
}

fn draw_err(e: impl std::fmt::Display) -> Error {
    Error::Protocol(format!("chart: {e}"))
}

/// Draws the latency chart to `path`: average round trip (ms) against
/// connections (log scale), one line per transport and version.
///
/// # Errors
/// [`Error::Protocol`] if plotters fails; [`Error::File`] if the file cannot be written.
pub fn latency(report: &Report, path: &Path) -> Result<()> {
    let fig = report.figure2();
    let ymax = report
        .latency
        .iter()
        .map(|r| r.avg_us / 1e3)
        .fold(0.0f64, f64::max)
        * 1.1;
    let xmax = report
        .latency
        .iter()
        .map(|r| r.connections)
        .max()
        .unwrap_or(1);
    let frame = svg::Frame {
        caption: "Average round trip vs concurrent connections",
        margin: 12,
        x_label_area: 40,
        y_label_area: 60,
    };
    // Series names are the Figure-2 columns ending in "avg ms".
    let names: Vec<String> = fig
        .table
        .headers
        .iter()
        .filter_map(|h| h.strip_suffix(" avg ms").map(str::to_string))
        .collect();
    let svg = svg::line_chart(
        (900, 560),
        frame,
        ((1u32..xmax.max(2)).log_scale(), 0.0..ymax.max(0.001)),
        ("connections", "average round trip, ms"),
        |chart| {
            for (i, name) in names.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                let pts: Vec<(u32, f64)> = report
                    .latency
                    .iter()
                    .filter(|r| {
                        let n = if r.transport.is_tls() {
                            format!("{} {}", r.transport, r.tls_version)
                        } else {
                            r.transport.to_string()
                        };
                        n == *name
                    })
                    .map(|r| (r.connections, r.avg_us / 1e3))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                    .label(name.clone())
                    .legend(svg::legend_line(color));
            }
            Ok(())
        },
    )
    .map_err(draw_err)?;
    write_svg(path, &svg)
}

/// Draws the handshake chart to `path`: handshake rate (socket harness, handshakes per
/// second of wall time on one thread), one bar per transport, version and cert.
///
/// # Errors
/// [`Error::Protocol`] if plotters fails; [`Error::File`] if the file cannot be written.
pub fn handshakes(report: &Report, path: &Path) -> Result<()> {
    let rows: Vec<_> = report
        .handshake
        .iter()
        .filter(|r| r.harness == "socket")
        .collect();
    let labels: Vec<String> = rows
        .iter()
        .map(|r| {
            if r.transport.is_tls() {
                format!(
                    "{} {} {} {}",
                    r.transport, r.tls_version, r.cert, r.resumption
                )
            } else {
                r.transport.to_string()
            }
        })
        .collect();
    let xmax = rows
        .iter()
        .map(|r| r.handshakes_per_sec)
        .fold(0.0f64, f64::max)
        * 1.15;
    let height = 80 + 22 * rows.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, height.max(200))).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let n = rows.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Handshakes per second (one thread, loopback)",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(330)
            .build_cartesian_2d(0.0..xmax.max(1.0), 0..n)
            .map_err(draw_err)?;
        let labels2 = labels.clone();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(rows.len().max(1))
            .y_label_formatter(&move |i| {
                usize::try_from(*i)
                    .ok()
                    .and_then(|i| labels2.get(i))
                    .cloned()
                    .unwrap_or_default()
            })
            .x_desc("handshakes/s")
            .draw()
            .map_err(draw_err)?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let color = COLORS[transport_index(r.transport) % COLORS.len()];
                let i = i as i32;
                Rectangle::new(
                    [(0.0, i), (r.handshakes_per_sec, i + 1)],
                    color.mix(0.8).filled(),
                )
            }))
            .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    write_svg(path, &svg)
}

fn transport_index(t: crate::config::Transport) -> usize {
    crate::config::Transport::ALL
        .iter()
        .position(|x| *x == t)
        .unwrap_or(0)
}
