package com.shop.model;

import com.shop.util.Text;
import java.util.ArrayList;
import java.util.List;

/** An order: lines and a status. */
public class Order extends Entity {
    public static final int MAX_LINES = 50;
    private final List<Line> lines = new ArrayList<>();
    private Status status = Status.OPEN;

    public Order(String id) {
        super(id);
    }

    public void add(Line line) {
        if (lines.size() >= MAX_LINES) {
            throw new IllegalStateException("too many lines");
        }
        lines.add(line);
    }

    public Money total() {
        Money sum = Money.zero();
        for (Line line : lines) {
            sum = sum.plus(line.amount());
        }
        return sum;
    }

    @Override
    public void save() {
        this.validate();
        super.save();
        status = Status.PAID;
    }

    public String reference() {
        return Text.slug(id()) + "-" + Text.MAX_LENGTH;
    }

    /** One line of an order. */
    public static class Line {
        private final Money price;
        private final int quantity;

        public Line(Money price, int quantity) {
            this.price = price;
            this.quantity = quantity;
        }

        public Money amount() {
            return price.times(quantity);
        }
    }
}
