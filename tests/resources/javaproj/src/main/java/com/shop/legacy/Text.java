package com.shop.legacy;

public class Text {
    public static String slug(String value) {
        return value;
    }

    public static String normalize(String value) {
        return value;
    }
}
