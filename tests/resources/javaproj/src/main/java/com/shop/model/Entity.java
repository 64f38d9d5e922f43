package com.shop.model;

public abstract class Entity implements Identifiable {
    private final String id;

    protected Entity(String id) {
        this.id = id;
    }

    @Override
    public String id() {
        return id;
    }

    public void save() {
        validate();
    }

    protected void validate() {
    }
}
