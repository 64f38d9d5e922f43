package com.shop.model;

public enum Status {
    OPEN,
    PAID;

    public boolean isFinal() {
        return this == PAID;
    }
}
