//! `RgbaImage` built from parts that disagree: a byte buffer that does not match its size.

use sinew::render::{RenderError, RgbaImage};

use super::constructors::returns;

// ---------------------------------------------------------------------------------------------
// RgbaImage.
// ---------------------------------------------------------------------------------------------

#[test]
fn image_from_a_buffer_that_does_not_match_its_size() {
    let err = returns("short image", || RgbaImage::new(4, 2, vec![0; 31])).unwrap_err();
    assert!(
        matches!(&err, RenderError::InvalidInput { object, .. } if object.contains("4×2")),
        "expected InvalidInput naming the image, got {err:?}"
    );
    assert!(err.to_string().contains("31 bytes"), "message: {err}");
}

#[test]
fn image_pixel_outside_the_image_is_none() {
    let image = RgbaImage::new(2, 1, vec![1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    assert_eq!(image.pixel(1, 0), Some([5, 6, 7, 8]), "inside");
    assert_eq!(image.pixel(2, 0), None, "right of the image");
    assert_eq!(image.pixel(0, 1), None, "below the image");
}

#[test]
fn image_pixel_past_a_short_buffer_is_none() {
    let image = RgbaImage {
        width: 2,
        height: 2,
        pixels: vec![9; 12],
    };
    assert_eq!(returns("short pixel", move || image.pixel(1, 1)), None);
}

#[test]
fn image_with_a_short_buffer_is_not_saved() {
    let path = std::env::temp_dir().join("sinew-malformed-short-image.png");
    let image = RgbaImage {
        width: 2,
        height: 2,
        pixels: vec![9; 12],
    };
    let shown = path.clone();
    let err = returns("short save", move || image.save_png(&shown)).unwrap_err();
    assert!(
        matches!(&err, RenderError::Image { reason, .. } if reason.contains("12 bytes")),
        "expected an Image error naming the byte count, got {err:?}"
    );
    assert!(!path.exists(), "no file is written");
}

#[test]
fn image_too_large_to_address_has_no_pixels() {
    let image = RgbaImage {
        width: u32::MAX,
        height: u32::MAX,
        pixels: Vec::new(),
    };
    let last = returns("huge pixel", move || {
        image.pixel(u32::MAX - 1, u32::MAX - 1)
    });
    assert_eq!(last, None);
}
