//! The switch timeline of one scenario: who ran which manager process, who held which Lease,
//! which process wrote what to ARM and when (429s and failed writes marked), when each Service
//! lost and regained its data path, when nodes were initialised, the switch steps, and the moment
//! a check was violated. [`build`] turns the scenario's recorded files into a [`Timeline`] (pure);
//! [`render_svg`] draws it as a static SVG (no script, no external asset, byte-for-byte stable for
//! the same input), written as `timeline.svg` beside the scenario's artifacts and embedded in
//! `report.html`; [`render_text`] draws it in fixed-width terminal lines (`harness run --verbose`).
//!
//! Inferred, not verified:
//! - [infer] an ARM write is attributed to one process of the writing component (the Entra client
//!   id says only which app called): the process whose identity held the Lease governing that
//!   manager's cloud loops at the nearest sample, else the only live process of that kind; with
//!   several candidates and no holder the write goes on an "unattributed" lane of the component.
//! - The violated check's moment is read from its reason or details (the `N s after/before the
//!   switch started` phrase of `checks::Intent::when`, or the ARM `journal seq N` it names); a
//!   failed check without either is listed above the picture with no line.

mod attribution;
mod build;
#[cfg(test)]
mod build_tests;
mod load;
mod model;
mod svg;
mod text;
mod violation;

pub use build::{Recorded, build};
pub use load::{LoadError, Loaded, load_dir, write_svg};
pub use model::{
    Lane, LaneGroup, ResourceKind, Span, SpanKind, Step, Tick, TickKind, Timeline, Violation,
};
pub use svg::{VIOLATION, render_svg, resource_colour, span_colour};
pub use text::render_text;

/// File name of the picture beside a scenario's artifacts.
pub const SVG_FILE: &str = "timeline.svg";
