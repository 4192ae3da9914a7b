//! The frame every SVG chart of the tools shares (plotters): the white
//! canvas, the caption, the axes with their descriptions, the legend marker
//! of a line series and the legend box. What a chart plots stays with its tool.

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

/// The caption of a chart and the room around its plot, pixels.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// The title above the chart (sans-serif, 20 px).
    pub caption: &'a str,
    /// Margin on every side, pixels.
    pub margin: u32,
    /// Height of the x axis' label area, pixels.
    pub x_label_area: u32,
    /// Width of the y axis' label area, pixels.
    pub y_label_area: u32,
}

/// A chart in SVG over the ranges `X` and `Y`, as [`line_chart`] hands it to
/// its caller to draw the series.
pub type SvgChart<'a, 'b, X, Y> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>,
>;

/// What drawing in SVG fails with.
pub type SvgError = DrawingAreaErrorKind<std::io::Error>;

/// The SVG text of a chart `size` pixels wide and high: a white canvas,
/// `frame`'s caption and room, the axes over the ranges `x` and `y` with
/// their descriptions `x_desc` and `y_desc`, what `draw` draws on them (the
/// series, labelled, with [`legend_line`] markers), and the legend of those
/// series in the upper left corner on 80 % white with a black border.
///
/// # Errors
/// Plotters fails to draw, or `draw` fails.
pub fn line_chart<X, Y>(
    size: (u32, u32),
    frame: Frame<'_>,
    (x, y): (X, Y),
    (x_desc, y_desc): (&str, &str),
    draw: impl FnOnce(&mut SvgChart<'_, '_, X, Y>) -> Result<(), SvgError>,
) -> Result<String, SvgError>
where
    X: AsRangedCoord,
    Y: AsRangedCoord,
    X::CoordDescType: ValueFormatter<<X::CoordDescType as Ranged>::ValueType>,
    Y::CoordDescType: ValueFormatter<<Y::CoordDescType as Ranged>::ValueType>,
{
    let mut svg = String::new();
    {
        let root: DrawingArea<SVGBackend<'_>, Shift> =
            SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(frame.caption, ("sans-serif", 20))
            .margin(frame.margin)
            .x_label_area_size(frame.x_label_area)
            .y_label_area_size(frame.y_label_area)
            .build_cartesian_2d(x, y)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()?;
        draw(&mut chart)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(svg)
}

/// The legend marker of a line series drawn in `color`, 2 px wide: a line
/// 20 px long (for `SeriesAnno::legend`).
pub fn legend_line<C: Color>(color: C) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    let style = color.stroke_width(2);
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_its_caption_axis_descriptions_and_legend() {
        let frame = Frame {
            caption: "the caption",
            margin: 10,
            x_label_area: 40,
            y_label_area: 50,
        };
        let svg = line_chart(
            (400, 300),
            frame,
            (0.0..10.0, 0.0..5.0),
            ("x things", "y things"),
            |chart| {
                chart
                    .draw_series(LineSeries::new(
                        [(0.0, 1.0), (10.0, 4.0)],
                        BLUE.stroke_width(2),
                    ))?
                    .label("the series")
                    .legend(legend_line(BLUE));
                Ok(())
            },
        )
        .expect("chart");
        for text in ["the caption", "x things", "y things", "the series"] {
            assert!(svg.contains(text), "{text} missing from {svg}");
        }
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}
