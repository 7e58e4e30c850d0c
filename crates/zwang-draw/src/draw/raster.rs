//! The bitmaps of `--draw`, whatever is drawn in them: panels side by
//! side in one PNG, or the frames of a GIF. The planar and the spatial
//! drawings give a closure that draws panel (or frame) `i`.

use super::{grid, rgb, BACKGROUND, FIXED_LINE, GIF_SIZE, PANEL};
use crate::plot::{register_font, text_error, write_rgb_png};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// A panel or frame to draw into.
pub(crate) type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// `count` panels of [`PANEL`] pixels side by side (a [`grid`], row by
/// row, thin lines between them), each on the background and drawn by
/// `panel(area, i)`, into a PNG at `path`.
pub(crate) fn write_stills(
    count: usize,
    path: &Path,
    mut panel: impl FnMut(&Area<'_>, usize) -> Result<(), String>,
) -> Result<(), String> {
    register_font()?;
    let (rows, cols) = grid(count);
    let size = (PANEL.0 * cols as u32, PANEL.1 * rows as u32);
    let mut buffer = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, size).into_drawing_area();
        root.fill(&rgb(BACKGROUND)).map_err(text_error)?;
        let panels = root.split_evenly((rows, cols));
        for (i, area) in panels.iter().enumerate().take(count) {
            panel(area, i)?;
        }
        // Thin lines between the panels.
        for (i, area) in panels.iter().enumerate().take(count) {
            if i % cols + 1 < cols || i / cols + 1 < rows {
                let (w, h) = (PANEL.0 as i32, PANEL.1 as i32);
                let edge = vec![(w - 1, 0), (w - 1, h - 1), (0, h - 1)];
                area.draw(&PathElement::new(edge, rgb(FIXED_LINE)))
                    .map_err(text_error)?;
            }
        }
        root.present().map_err(text_error)?;
    }
    write_rgb_png(&buffer, size, path)
}

/// `count` frames of [`GIF_SIZE`] pixels, `delay_ms` apart, each on the
/// background and drawn by `frame(area, i)`, into a GIF at `path`.
pub(crate) fn write_animation(
    count: usize,
    delay_ms: u32,
    path: &Path,
    mut frame: impl FnMut(&Area<'_>, usize) -> Result<(), String>,
) -> Result<(), String> {
    register_font()?;
    let root = BitMapBackend::gif(path, GIF_SIZE, delay_ms)
        .map_err(text_error)?
        .into_drawing_area();
    for i in 0..count {
        root.fill(&rgb(BACKGROUND)).map_err(text_error)?;
        frame(&root, i)?;
        root.present().map_err(text_error)?;
    }
    Ok(())
}
