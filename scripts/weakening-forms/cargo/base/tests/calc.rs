use calc::{add, multiply};

#[test]
fn adds() {
    assert_eq!(add(1, 2), 3);
}

#[test]
fn multiplies() {
    assert_eq!(multiply(2, 3), 6);
}
