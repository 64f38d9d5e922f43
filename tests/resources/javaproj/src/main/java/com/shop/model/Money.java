package com.shop.model;

public record Money(long cents, String currency) {
    public Money {
        if (cents < 0) {
            throw new IllegalArgumentException("negative amount");
        }
    }

    public static Money zero() {
        return new Money(0, "EUR");
    }

    public Money plus(Money other) {
        return new Money(cents + other.cents, currency);
    }

    public Money times(int factor) {
        return new Money(cents * factor, currency);
    }
}
