const { Circle, makeCircle: make } = require('../lib/shapes');
const Logger = require('../lib/logger');
const shapes = require('../lib/shapes');

const logger = new Logger('[main]');

function run() {
  const circle = make(2);
  logger.log(circle.describe());
  logger.log(make(1).area());
  return new shapes.Shape('plain') instanceof Circle;
}

module.exports = run;
