//! The frame every SVG chart of the tools shares (plotters): a captioned
//! chart with described axes, the legend marker of a line series, and the
//! legend box. What a chart plots stays with its tool.

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

/// A two-dimensional chart on backend `DB` over the ranges `X` and `Y`.
pub type Chart<'a, DB, X, Y> = ChartContext<
    'a,
    DB,
    Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>,
>;

/// What drawing on backend `DB` fails with.
pub type DrawError<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;

/// The chart `frame` describes on `root` over the ranges `x` and `y`, its mesh
/// drawn with the axis descriptions `x_desc` and `y_desc`.
///
/// # Errors
/// Plotters fails to draw on `root`.
pub fn axes<'a, DB, X, Y>(
    root: &'a DrawingArea<DB, Shift>,
    frame: Frame<'_>,
    (x, y): (X, Y),
    (x_desc, y_desc): (&str, &str),
) -> Result<Chart<'a, DB, X, Y>, DrawError<DB>>
where
    DB: DrawingBackend,
    X: AsRangedCoord,
    Y: AsRangedCoord,
    X::CoordDescType: ValueFormatter<<X::CoordDescType as Ranged>::ValueType>,
    Y::CoordDescType: ValueFormatter<<Y::CoordDescType as Ranged>::ValueType>,
{
    let mut chart = ChartBuilder::on(root)
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
    Ok(chart)
}

/// The legend marker of a line series drawn in `color`, 2 px wide: a line
/// 20 px long (for `SeriesAnno::legend`).
pub fn legend_line<C: Color>(color: C) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    let style = color.stroke_width(2);
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style)
}

/// Draws the legend of `chart`'s labelled series in its upper left corner, on
/// 80 % white with a black border.
///
/// # Errors
/// Plotters fails to draw.
pub fn draw_legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>) -> Result<(), DrawError<DB>>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_its_caption_axis_descriptions_and_legend() {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (400, 300)).into_drawing_area();
            let frame = Frame {
                caption: "the caption",
                margin: 10,
                x_label_area: 40,
                y_label_area: 50,
            };
            let mut chart = axes(
                &root,
                frame,
                (0.0..10.0, 0.0..5.0),
                ("x things", "y things"),
            )
            .expect("axes");
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 1.0), (10.0, 4.0)],
                    BLUE.stroke_width(2),
                ))
                .expect("series")
                .label("the series")
                .legend(legend_line(BLUE));
            draw_legend(&mut chart).expect("legend");
            root.present().expect("present");
        }
        for text in ["the caption", "x things", "y things", "the series"] {
            assert!(svg.contains(text), "{text} missing from {svg}");
        }
    }
}
