pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

pub fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

pub fn format_total(values: &[i64]) -> String {
    format!("total: {}", values.iter().sum::<i64>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test] // fixed:R
    fn adds_small_numbers() { // fixed:R
        assert_eq!(add(1, 2), 3); // fixed:R
        assert_eq!(missing(1, 2), 3); // fault:E
        assert_eq!(add(2, 2), 5); // fault:A
    } // fixed:R

    #[test]
    #[ignore] // fault:S
    fn adds_negative_numbers() {
        assert_eq!(add(-1, -2), -3);
        assert_eq!(add(-1, -2), 3); // fault:B
    }

    mod multiply {
        use super::super::multiply;

        #[test]
        fn by_four() {
            assert_eq!(multiply(3, 4), 12);
            assert_eq!(multiply(3, 4), 7); // fault:C
        }
    }
}
