//! Applies a Service's wanted children to an LB's child list without disturbing anyone else's:
//! the Service's existing children are kept in place when equal, rewritten in place when not,
//! dropped when no longer wanted; new ones are appended. Children of other owners and unknown
//! fields are never touched.

use crate::arm::resources::Child;

use super::ownership::name_of;

/// How one kind of child is compared and rewritten.
pub(crate) struct ChildRules<'a, P> {
    /// True for children the Service owns (so they may be dropped).
    pub owned: &'a dyn Fn(&str) -> bool,
    /// True when an existing child's properties already are the wanted ones.
    pub equal: fn(&P, &P) -> bool,
    /// Rewrites the managed fields of an existing child.
    pub update: fn(&mut P, &P),
}

/// Reconciles `list` towards `wanted` for the children `rules.owned` selects.
pub(crate) fn reconcile<P: Clone + Default>(
    list: &mut Vec<Child<P>>,
    wanted: &[Child<P>],
    rules: &ChildRules<'_, P>,
) {
    let mut used = vec![false; wanted.len()];
    list.retain_mut(|existing| {
        let name = name_of(existing).to_string();
        let position = wanted
            .iter()
            .position(|w| name_of(w).eq_ignore_ascii_case(&name));
        match position {
            Some(i) => {
                used[i] = true;
                if let Some(want) = wanted[i].properties.as_ref() {
                    let props = existing.properties.get_or_insert_with(P::default);
                    if !(rules.equal)(props, want) {
                        (rules.update)(props, want);
                    }
                }
                true
            }
            None => !(rules.owned)(&name),
        }
    });
    for (want, used) in wanted.iter().zip(used) {
        if !used {
            list.push(want.clone());
        }
    }
}

/// Takes an optional child list out of a document for editing.
pub(crate) fn take<T>(slot: &mut Option<Vec<T>>) -> (Vec<T>, bool) {
    let was_none = slot.is_none();
    (slot.take().unwrap_or_default(), was_none)
}

/// Puts an edited child list back, leaving an absent list absent when it stayed empty.
pub(crate) fn put_back<T>(slot: &mut Option<Vec<T>>, list: Vec<T>, was_none: bool) {
    *slot = if list.is_empty() && was_none {
        None
    } else {
        Some(list)
    };
}
