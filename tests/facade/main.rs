//! The facade's integration tests as one binary (one build and link
//! instead of one per file): each file a module.

mod forms_support;
mod motion_support;

mod articulated;
mod contact_scenes;
mod frames;
mod frictional_impacts;
mod generalized_constraints;
mod knife_edge;
mod motion_closed_forms;
mod motion_islands;
mod motion_robust;
mod motion_rod;
mod motion_scenes;
mod nonholonomic;
mod stored_instants;
mod vakonomic;
