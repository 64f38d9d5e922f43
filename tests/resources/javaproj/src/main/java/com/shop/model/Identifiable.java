package com.shop.model;

public interface Identifiable {
    String id();
}
