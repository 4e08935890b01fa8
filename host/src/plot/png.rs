//! `-o FILE.png`: a chart's SVG rasterised with resvg (the `png` feature, off by default).

/// The font families a PNG's text is drawn in, the first the machine has (the SVG asks for
/// `sans-serif`): DejaVu Sans, which Debian's fontconfig brings, then two common others.
pub const PNG_FONTS: [&str; 3] = ["DejaVu Sans", "Liberation Sans", "Arial"];

/// Rasterises a chart's SVG (what `-o FILE.svg` writes) into PNG bytes of the SVG's size,
/// with resvg; the text is drawn in the first of [`PNG_FONTS`] the machine's fonts have, so
/// the bytes are the same wherever the same font file is installed. A machine with none of
/// them is one line: a chart without its text would be silently wrong.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    let db = options.fontdb_mut();
    db.load_system_fonts();
    let family = PNG_FONTS
        .iter()
        .find(|f| {
            db.faces()
                .any(|face| face.families.iter().any(|(name, _)| name == *f))
        })
        .ok_or_else(|| {
            format!(
                "-o FILE.png: no font to draw the chart's text with (one of {} is needed: install fonts-dejavu-core, or write FILE.svg)",
                PNG_FONTS.join(", ")
            )
        })?;
    db.set_sans_serif_family(*family);
    options.font_family = family.to_string();
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| format!("cannot read the chart's SVG: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "cannot draw the PNG: the chart has no pixels".to_string())?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode the PNG: {e}"))
}
