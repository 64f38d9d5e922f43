package com.shop.util;

public final class Text {
    public static final int MAX_LENGTH = 40;

    private Text() {
    }

    public static String slug(String value) {
        return normalize(value) + "-";
    }

    public static String normalize(String value) {
        return value.trim();
    }
}
