require "json"
require_relative "base"
require_relative "auditable"
require "shop/pricing"

module Shop
  # An order: amounts, and a total with tax.
  class Order < Base
    include Auditable

    MAX_LINES = 50

    attr_reader :id

    def self.build(id)
      new(id)
    end

    def initialize(id)
      @id = id
      @amounts = []
    end

    def add(amount)
      raise ArgumentError, "too many lines" if @amounts.size >= MAX_LINES
      @amounts << amount
      audit(:added)
    end

    def subtotal
      @amounts.sum
    end

    def total
      Pricing::Tax.apply(subtotal)
    end

    def save
      self.validate
      super
    end

    def export
      payload = serialize(:json)
      Exporter.dump(payload)
    end
  end
end
