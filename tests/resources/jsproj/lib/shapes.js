'use strict';

/** A shape knows its area. */
class Shape {
  constructor(name) {
    this.name = name;
  }

  area() {
    return 0;
  }

  describe() {
    return `${this.name}: ${this.area()}`;
  }
}

class Circle extends Shape {
  constructor(radius) {
    super('circle');
    this.radius = radius;
  }

  area() {
    return Math.PI * this.radius ** 2;
  }
}

const UNIT = 1;

function makeCircle(radius = UNIT) {
  return new Circle(radius);
}

module.exports = { Shape, Circle, makeCircle };
