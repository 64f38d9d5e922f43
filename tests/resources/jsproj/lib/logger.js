const util = require('./util');

function Logger(prefix) {
  this.prefix = prefix;
}

Logger.prototype.log = function (message) {
  return console.log(this.prefix + util.pad(message));
};

Logger.prototype.info = function (message) {
  return this.log(`info: ${message}`);
};

module.exports = Logger;
