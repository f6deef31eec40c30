//! Animated PNG (APNG) files: frames of one size written one after another as they are drawn,
//! each shown for `1 / fps` seconds, looping forever. Viewers without APNG support show the
//! first frame.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::capture::RgbaImage;
use super::error::RenderError;

/// An animated PNG being written: [`AnimatedPng::create`], one [`AnimatedPng::write_frame`] per
/// frame (exactly the count given), then [`AnimatedPng::finish`].
pub struct AnimatedPng {
    path: PathBuf,
    writer: png::Writer<BufWriter<File>>,
    width: u32,
    height: u32,
    frames: u32,
    written: u32,
}

impl std::fmt::Debug for AnimatedPng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnimatedPng")
            .field("path", &self.path)
            .field("size", &(self.width, self.height))
            .field("frames", &(self.written, self.frames))
            .finish()
    }
}

impl AnimatedPng {
    /// Creates `path` (and its folder) for `frames` frames of `width × height` pixels, shown
    /// at `fps` frames per second (a whole number from 1 to 1000).
    pub fn create(
        path: impl AsRef<Path>,
        width: u32,
        height: u32,
        frames: u32,
        fps: u32,
    ) -> Result<Self, RenderError> {
        let path = path.as_ref().to_path_buf();
        let fail = |reason: String| RenderError::Image {
            path: path.display().to_string(),
            reason,
        };
        if frames == 0 || width == 0 || height == 0 {
            return Err(fail(format!(
                "{frames} frame(s) of {width}×{height}: nothing to write"
            )));
        }
        let delay = u16::try_from(fps)
            .ok()
            .filter(|f| (1..=1000).contains(f))
            .ok_or_else(|| fail(format!("{fps} frames per second is outside 1..=1000")))?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create folder: {e}")))?;
        }
        let file = File::create(&path).map_err(|e| fail(format!("cannot create file: {e}")))?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let png_error = |e: png::EncodingError| fail(format!("cannot write APNG: {e}"));
        // 0 plays: loop forever.
        encoder.set_animated(frames, 0).map_err(png_error)?;
        encoder.set_frame_delay(1, delay).map_err(png_error)?;
        let writer = encoder.write_header().map_err(png_error)?;
        Ok(Self {
            path,
            writer,
            width,
            height,
            frames,
            written: 0,
        })
    }

    /// Appends the next frame, which must have the file's size.
    pub fn write_frame(&mut self, image: &RgbaImage) -> Result<(), RenderError> {
        if (image.width, image.height) != (self.width, self.height) {
            return Err(self.fail(format!(
                "frame of {}×{}, the file's are {}×{}",
                image.width, image.height, self.width, self.height
            )));
        }
        if self.written == self.frames {
            return Err(self.fail(format!("more than the {} frames declared", self.frames)));
        }
        if image.pixels.len() as u64 != u64::from(self.width) * u64::from(self.height) * 4 {
            return Err(self.fail(format!("{} bytes of pixels", image.pixels.len())));
        }
        self.writer
            .write_image_data(&image.pixels)
            .map_err(|e| self.fail(format!("cannot write frame {}: {e}", self.written)))?;
        self.written += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames_written(&self) -> u32 {
        self.written
    }

    /// Completes the file; fails when fewer frames were written than declared.
    pub fn finish(self) -> Result<(), RenderError> {
        if self.written != self.frames {
            return Err(self.fail(format!(
                "{} of the {} frames declared were written",
                self.written, self.frames
            )));
        }
        let path = self.path.display().to_string();
        self.writer.finish().map_err(|e| RenderError::Image {
            path,
            reason: format!("cannot finish APNG: {e}"),
        })
    }

    fn fail(&self, reason: String) -> RenderError {
        RenderError::Image {
            path: self.path.display().to_string(),
            reason,
        }
    }
}

/// What [`read_apng_frames`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApngFrames {
    /// Frame count and play count (0: forever) from the `acTL` chunk; `None` for a still PNG.
    pub animation: Option<(u32, u32)>,
    /// Every frame's pixels.
    pub frames: Vec<RgbaImage>,
}

/// The frames of an animated PNG at `path`, each as a viewer shows it when every frame covers
/// the whole image (as [`AnimatedPng`] writes them).
pub fn read_apng_frames(path: impl AsRef<Path>) -> Result<ApngFrames, RenderError> {
    let path = path.as_ref();
    let fail = |reason: String| RenderError::Image {
        path: path.display().to_string(),
        reason,
    };
    let file = File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| fail(format!("not a PNG: {e}")))?;
    let animation = reader
        .info()
        .animation_control()
        .map(|a| (a.num_frames, a.num_plays));
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| fail("image too large".into()))?;
    let (width, height) = (reader.info().width, reader.info().height);
    let count = animation.map_or(1, |(n, _)| n);
    let mut frames = Vec::new();
    for k in 0..count {
        let mut data = vec![0; size];
        let info = reader
            .next_frame(&mut data)
            .map_err(|e| fail(format!("cannot decode frame {k}: {e}")))?;
        if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
            return Err(fail(format!(
                "frame {k} is {:?} {:?}, expected 8-bit RGBA",
                info.color_type, info.bit_depth
            )));
        }
        if (info.width, info.height) != (width, height) {
            return Err(fail(format!("frame {k} does not cover the image")));
        }
        data.truncate(info.buffer_size());
        frames.push(RgbaImage::new(width, height, data)?);
    }
    Ok(ApngFrames { animation, frames })
}
